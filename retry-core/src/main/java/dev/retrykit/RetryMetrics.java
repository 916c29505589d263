package dev.retrykit;

import java.util.List;

/**
 * Read access to the counters of one instance. Counters are monotonic and thread-safe; reading them
 * while calls run gives a consistent-enough snapshot for monitoring, not a transaction.
 *
 * <p>Outcomes: every call that ran at least one attempt or was rejected ends in exactly one of the
 * four call counters. A call that ended with recovery counts as failed and in {@link #getRecoveries()}.
 */
public interface RetryMetrics {

	/** {@return calls that succeeded on their first attempt} */
	long getSuccessfulCallsWithoutRetry();

	/** {@return calls that succeeded after at least one failed attempt} */
	long getSuccessfulCallsWithRetry();

	/** {@return calls that failed without a retry (non-retryable failure, rejection before a retry, max-attempts 1)} */
	long getFailedCallsWithoutRetry();

	/** {@return calls that failed after at least one retry} */
	long getFailedCallsWithRetry();

	/**
	 * {@return attempts made, first attempts included; an attempt is counted as it starts, except the
	 * first attempt of an instance with nothing that watches it (no breaker, budget, listener, deadline
	 * or result predicate), which is counted as it ends}
	 */
	long getAttempts();

	/** {@return calls whose result came from a recovery callback} */
	long getRecoveries();

	/** {@return attempts refused by an open circuit breaker} */
	long getCircuitOpenRejections();

	/** {@return retries refused by the retry budget} */
	long getBudgetExhaustedRejections();

	/**
	 * {@return calls that ended at their deadline ({@code max-duration} or a {@link Deadline}): a retry,
	 * hedged copy or backoff was not started because it would have ended after it, or a
	 * {@code Deadline} had passed before the first attempt ({@link DeadlineExceededException}); one
	 * per call}
	 */
	default long getDeadlineRejections() {
		return 0;
	}

	/**
	 * {@return calls that ended without a retry (or a further hedged copy) because an attempt's
	 * downstream said it had already retried and given up ({@link DownstreamExhaustedException}); one
	 * per call}
	 */
	default long getDownstreamExhaustedRejections() {
		return 0;
	}

	/** {@return exceptions thrown by listeners (caught and logged, never breaking a call)} */
	long getListenerFailures();

	/** {@return the most recent events, oldest first, at most the buffer's capacity} */
	List<RetryEvent> getRecentEvents();

	/** {@return the number of events recorded since start, including those no longer in the buffer} */
	long getRecordedEvents();

	/**
	 * Hedged calls: copies sent after a call's first. Each ends as exactly one of
	 * {@link #getHedgesWon() won}, {@link #getHedgesLost() lost} or {@link #getHedgesCancelled() cancelled}
	 * once its call ended.
	 * @return copies after the first that were sent (default 0 for an instance that does not hedge)
	 */
	default long getHedgesStarted() {
		return 0;
	}

	/** {@return copies after the first whose result won their call} */
	default long getHedgesWon() {
		return 0;
	}

	/** {@return copies after the first that did not win: they failed, or another copy won while they ran} */
	default long getHedgesLost() {
		return 0;
	}

	/**
	 * {@return copies after the first cancelled because their call ended without a winner (a
	 * non-retryable failure, the caller's cancel, a stopped scheduler)}
	 */
	default long getHedgesCancelled() {
		return 0;
	}

	/** {@return copies that were due but not sent: the budget, the circuit or the deadline refused them} */
	default long getHedgesRefused() {
		return 0;
	}

}
