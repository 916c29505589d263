package dev.retrykit;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One entry of an instance's recent-event buffer. Immutable.
 *
 * @param type what happened
 * @param name the instance
 * @param attempt the attempt the event is about (1 for the first attempt)
 * @param exceptionType the fully qualified class name of the failure, or {@code null}
 * @param exceptionMessage the failure's message, or {@code null}; a message longer than 256
 * characters is cut there and marked {@code "... [truncated from N characters]"}, so that the buffer
 * stays small whatever the failures carry (the failure itself is never kept); may hold sensitive data:
 * an endpoint masks it unless values are shown
 * @param delay the wait before the next attempt, {@link Duration#ZERO} when none
 * @param timestamp when it happened
 */
public record RetryEvent(RetryEventType type, String name, int attempt, @Nullable String exceptionType,
		@Nullable String exceptionMessage, Duration delay, Instant timestamp) {
}
