package dev.retrykit;

/**
 * The kinds of {@link RetryEvent} an instance records in its ring buffer of recent events.
 * A first attempt that succeeds records nothing: that path stays free of allocation.
 */
public enum RetryEventType {
	/** An attempt failed and another one is scheduled after the event's delay. */
	RETRY,
	/** The call succeeded after at least one failed attempt. */
	SUCCESS_AFTER_RETRY,
	/** A failure that is not retryable ended the call. */
	NON_RETRYABLE_FAILURE,
	/** The call's attempts were exhausted. */
	EXHAUSTED,
	/** A recovery callback supplied the result of a failed call. */
	RECOVERED,
	/** An attempt was refused because the circuit breaker is open. */
	CIRCUIT_OPEN_REJECTION,
	/** A retry was refused because the retry budget is exhausted. */
	BUDGET_REJECTION,
	/** The caller's thread was interrupted while waiting to retry. */
	INTERRUPTED,
	/**
	 * A stateful call failed and rethrew; the next call with its key continues after the event's delay, or,
	 * when this was its last allowed attempt (or a failure it cannot retry), finds it exhausted.
	 */
	STATEFUL_RETHROW,
	/** A failed background (failback) task was scheduled for a retry. */
	FAILBACK_SCHEDULED,
	/** A background (failback) task exhausted its retries. */
	FAILBACK_EXHAUSTED,
	/** An attempt of an async call timed out (attempt-timeout). */
	ATTEMPT_TIMEOUT,
	/** A hedged call started a copy after its first (its delay passed, or a copy failed). */
	HEDGE,
	/** A copy after the first won a hedged call: its result was accepted first. */
	HEDGE_WON,
	/**
	 * The call ended at its deadline ({@code max-duration} or a {@link Deadline}): its next attempt or
	 * backoff would have ended after it, or the deadline had passed before the call's first attempt.
	 */
	DEADLINE_REJECTION,
	/**
	 * The call ended without a retry because an attempt's downstream had already retried and given up
	 * ({@link DownstreamExhaustedException}).
	 */
	DOWNSTREAM_EXHAUSTED_REJECTION
}
