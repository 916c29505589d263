package dev.retrykit.internal;

/**
 * What the engine decides after an attempt, as one {@code long} so that deciding allocates nothing: a
 * delay in nanoseconds (zero or more) before the next attempt or copy, or one of the sentinels below,
 * all negative — the call accepted, a reason to stop ({@code STOP_*}), a stateful call's roll-back, or a
 * hedged call's wait for the copies in flight. This type owns every sentinel, so that no engine extends
 * the space on its own, and says whether a value is a delay ({@link #isDelay}). With it,
 * {@link Turn}: whether an outcome is a plain attempt's or a hedged copy's, and whether another copy may
 * follow. Not instantiable.
 */
final class Decision {

	/** {@link CallLifecycle#afterAttempt} result: the attempt succeeded and its success is recorded. */
	static final long ACCEPTED = -100;

	/** The failure is not retryable. */
	static final long STOP_NOT_RETRYABLE = -1;

	/** Attempts exhausted (max-attempts, policy, or exhausted-only). */
	static final long STOP_EXHAUSTED = -2;

	/**
	 * The next attempt, or its backoff, would end after the call's deadline (max-duration or the caller's
	 * {@link dev.retrykit.Deadline}), or that deadline had passed before the first attempt
	 * ({@link CallDeadlines#passedAtOpen}).
	 */
	static final long STOP_DEADLINE = -3;

	/** The retry budget refused the retry. */
	static final long STOP_BUDGET = -4;

	/**
	 * The circuit refused the attempt, or is open for longer than the delay so that the next attempt
	 * would be refused: the call ends now, without waiting.
	 */
	static final long STOP_CIRCUIT_OPEN = -5;

	/** User code in the decision threw: the call ends with that exception, never recovered. */
	static final long STOP_BROKEN = -6;

	/** The attempt failed with {@link InterruptedException}: the call ends with it, never recovered. */
	static final long STOP_INTERRUPTED = -7;

	/** The wait before the next attempt could not be scheduled: the scheduler is stopped. */
	static final long STOP_SCHEDULER_STOPPED = -8;

	/**
	 * The scheduler stopped while it held the attempt's timeout, or refused it: nothing would end an
	 * attempt that never completes, so the call ends now and the attempt is cancelled.
	 */
	static final long STOP_ATTEMPT_ABANDONED = -9;

	/**
	 * The thread was interrupted while it waited before the next attempt: the call ends with a
	 * {@link dev.retrykit.RetryInterruptedException} (the last failure as cause), never recovered.
	 */
	static final long STOP_WAIT_INTERRUPTED = -10;

	/**
	 * The attempt failed with a {@link dev.retrykit.DownstreamExhaustedException}: the downstream already retried and
	 * gave up, so the call is not retried (nor hedged further), whatever its classification.
	 */
	static final long STOP_DOWNSTREAM_EXHAUSTED = -11;

	/** {@link CallLifecycle#rollback} result: the failure is rethrown for the caller to roll back; the next call continues. */
	static final long ROLL_BACK = -101;

	/** {@link CallLifecycle#rollback} result: the failure is handled within the call, as in a stateless one. */
	static final long HANDLE_HERE = -102;

	/** A hedged call's decision after a copy that was not accepted: nothing to do but wait for the copies in flight. */
	static final long AWAIT = Long.MIN_VALUE;

	private Decision() {
	}

	/** {@return whether {@code decision} is a delay (in nanoseconds, zero or more) before the next attempt or copy} */
	static boolean isDelay(long decision) {
		return decision >= 0;
	}

	/**
	 * Whose outcome {@link CallLifecycle} takes: a plain attempt's, whose attempts left are those not
	 * failed yet, or a hedged copy's, whose attempts left are the copies not started yet.
	 */
	enum Turn {

		/** A call that does not hedge. */
		NOT_HEDGED,

		/** A hedged call that may start another copy. */
		COPY_MAY_FOLLOW,

		/** A hedged call whose every copy has started. */
		LAST_COPY

	}

}
