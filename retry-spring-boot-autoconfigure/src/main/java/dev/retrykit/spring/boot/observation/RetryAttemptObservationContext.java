package dev.retrykit.spring.boot.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code retry.attempt} observation: the instance, the attempt's number (1 for the
 * first attempt), whether it is a hedge (a copy of a hedged call after the first), and its failure once
 * it has failed. Its parent is the call's observation. Written by one attempt; not meant to be shared.
 */
public class RetryAttemptObservationContext extends Observation.Context {

	private final String retryName;

	private final int attempt;

	private final boolean hedged;

	private @Nullable Throwable failure;

	/** The instance's key values made once, for the default convention; {@code null} when not made. */
	final @Nullable InstanceKeyValues keys;

	// The listener's bookkeeping of the attempt, kept here rather than in an object of its own (one
	// allocation less per attempt, ObservedCallBenchmark); guarded by the call's CallObservation.

	/** Whether the attempt runs: from right before its observation starts to right before it stops. */
	boolean running;

	/** The attempt's observation while it runs. */
	@Nullable Observation observation;

	/** The attempt's scope, open on its thread from beforeAttempt to attemptReturned. */
	Observation.@Nullable Scope scope;

	/** The attempt started before this one and still running (a hedged call's copies run side by side). */
	@Nullable RetryAttemptObservationContext earlier;

	/**
	 * The context of an attempt that is not a hedge.
	 * @param retryName the name of the retry instance running the call
	 * @param attempt the attempt's number, 1 for the first
	 */
	public RetryAttemptObservationContext(String retryName, int attempt) {
		this(retryName, attempt, false);
	}

	/**
	 * The context of an attempt, or of a hedged call's copy.
	 * @param retryName the name of the retry instance running the call
	 * @param attempt the attempt's number, 1 for the first; for a hedged call, the copy's number
	 * @param hedged whether the attempt is a copy of a hedged call after the first
	 */
	public RetryAttemptObservationContext(String retryName, int attempt, boolean hedged) {
		this(retryName, attempt, hedged, null);
	}

	RetryAttemptObservationContext(String retryName, int attempt, boolean hedged, @Nullable InstanceKeyValues keys) {
		this.retryName = Objects.requireNonNull(retryName, "retryName must not be null");
		this.attempt = attempt;
		this.hedged = hedged;
		this.keys = keys;
	}

	/** {@return the name of the retry instance running the call} */
	public String getRetryName() {
		return this.retryName;
	}

	/** {@return the attempt's number, 1 for the first (for a stateful call, counted across its calls)} */
	public int getAttempt() {
		return this.attempt;
	}

	/** {@return whether the attempt is a copy of a hedged call after the first} */
	public boolean isHedged() {
		return this.hedged;
	}

	/** {@return the attempt's failure, or {@code null} while it runs, when it succeeded or returned a rejected result} */
	public @Nullable Throwable getFailure() {
		return this.failure;
	}

	/**
	 * Sets the attempt's failure.
	 * @param failure the attempt's failure, or {@code null}
	 */
	public void setFailure(@Nullable Throwable failure) {
		this.failure = failure;
	}

}
