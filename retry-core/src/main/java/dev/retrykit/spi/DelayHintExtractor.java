package dev.retrykit.spi;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Lets a failure dictate the delay before the next attempt, as an HTTP {@code Retry-After} header
 * does. A hint replaces the computed backoff delay; it is still bounded by the instance's
 * {@code max-duration} and by its hint ceiling.
 *
 * <p>Implementations must be thread-safe and must not throw.
 */
@FunctionalInterface
public interface DelayHintExtractor {

	/**
	 * Reads a delay hint from a failure (the engine walks the cause chain).
	 * @param failure the exception of the failed attempt
	 * @return the delay the failure asks for, or {@code null} when it asks for none
	 */
	@Nullable Duration delayHint(Throwable failure);

}
