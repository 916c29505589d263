package dev.retrykit.spring.boot.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code retry.attempt} observation: the instance, the attempt's number (1 for the
 * first attempt), and its failure once it has failed. Its parent is the call's observation. Written
 * by one attempt; not meant to be shared.
 */
public class RetryAttemptObservationContext extends Observation.Context {

	private final String retryName;

	private final int attempt;

	private @Nullable Throwable failure;

	/**
	 * @param retryName the name of the retry instance running the call
	 * @param attempt the attempt's number, 1 for the first
	 */
	public RetryAttemptObservationContext(String retryName, int attempt) {
		this.retryName = Objects.requireNonNull(retryName, "retryName must not be null");
		this.attempt = attempt;
	}

	/** @return the name of the retry instance running the call */
	public String getRetryName() {
		return this.retryName;
	}

	/** @return the attempt's number, 1 for the first (for a stateful call, counted across its calls) */
	public int getAttempt() {
		return this.attempt;
	}

	/** @return the attempt's failure, or {@code null} while it runs, when it succeeded or returned a rejected result */
	public @Nullable Throwable getFailure() {
		return this.failure;
	}

	/** @param failure the attempt's failure, or {@code null} */
	public void setFailure(@Nullable Throwable failure) {
		this.failure = failure;
	}

}
