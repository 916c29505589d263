package dev.retrykit.context;

/**
 * Why a call that did not succeed stopped retrying: told to listeners through
 * {@link RetryContext#getStopReason()} when the call closes.
 */
public enum StopReason {

	/** The failure (or rejected result) is not one the instance retries. */
	NOT_RETRYABLE,

	/** The instance's max-attempts were used up, or {@link RetryContext#setExhaustedOnly()} was called. */
	ATTEMPTS_EXHAUSTED,

	/**
	 * The next attempt or its backoff would have ended after the call's deadline ({@code max-duration} or a
	 * {@link dev.retrykit.Deadline}), or the {@code Deadline} had passed before the first attempt
	 * ({@link dev.retrykit.DeadlineExceededException}).
	 */
	DEADLINE,

	/** The retry budget refused the retry. */
	BUDGET_EXHAUSTED,

	/** An open circuit refused the attempt. */
	CIRCUIT_OPEN,

	/** The downstream said it had already retried and given up ({@link dev.retrykit.DownstreamExhaustedException}). */
	DOWNSTREAM_EXHAUSTED,

	/** The caller gave up: the thread was interrupted, or the call's future was cancelled or completed from outside. */
	CANCELLED,

	/**
	 * Something else ended the call: a stopped scheduler, a listener's veto, a broken policy or predicate,
	 * or a stateful call's failure rethrown for its caller to roll back while a retry is still to come.
	 */
	OTHER;

	/**
	 * Whether the call gave up on a failure it would otherwise have retried: it ran out of attempts,
	 * or a retry was refused (budget, circuit, deadline, an exhausted downstream). A service whose
	 * request failed after such a call tells its own caller not to retry ({@code X-Retry-Exhausted}).
	 * @return {@code true} for {@link #ATTEMPTS_EXHAUSTED}, {@link #DEADLINE}, {@link #BUDGET_EXHAUSTED},
	 * {@link #CIRCUIT_OPEN} and {@link #DOWNSTREAM_EXHAUSTED}
	 */
	public boolean isExhaustion() {
		return switch (this) {
			case ATTEMPTS_EXHAUSTED, DEADLINE, BUDGET_EXHAUSTED, CIRCUIT_OPEN, DOWNSTREAM_EXHAUSTED -> true;
			default -> false;
		};
	}

}
