package dev.retrykit.spring.boot.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code retry.call} observation: the instance, and once the call has ended its
 * outcome and the failure it ended with. Written by one call at a time (its attempts may run on
 * different threads, one after the other); not meant to be shared.
 */
public class RetryObservationContext extends Observation.Context {

	private final String retryName;

	/** The instance's key values made once, for the default convention; {@code null} when not made. */
	final @Nullable InstanceKeyValues keys;

	private @Nullable RetryCallOutcome outcome;

	private @Nullable Throwable failure;

	/**
	 * The context of a call.
	 * @param retryName the name of the retry instance running the call
	 */
	public RetryObservationContext(String retryName) {
		this(retryName, null);
	}

	RetryObservationContext(String retryName, @Nullable InstanceKeyValues keys) {
		this.retryName = Objects.requireNonNull(retryName, "retryName must not be null");
		this.keys = keys;
	}

	/** {@return the name of the retry instance running the call} */
	public String getRetryName() {
		return this.retryName;
	}

	/** {@return how the call ended, or {@code null} while it runs} */
	public @Nullable RetryCallOutcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Sets how the call ended.
	 * @param outcome how the call ended
	 */
	public void setOutcome(RetryCallOutcome outcome) {
		this.outcome = outcome;
	}

	/**
	 * The failure behind the outcome: what the call ends with, or for a recovered call the last
	 * failure it recovered from.
	 * @return the failure, or {@code null} when there was none
	 */
	public @Nullable Throwable getFailure() {
		return this.failure;
	}

	/**
	 * Sets the failure behind the outcome.
	 * @param failure the failure behind the outcome, or {@code null}
	 */
	public void setFailure(@Nullable Throwable failure) {
		this.failure = failure;
	}

}
