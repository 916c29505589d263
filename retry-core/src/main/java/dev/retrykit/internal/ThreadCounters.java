package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * The counters of one instance written by one thread. Only the owning thread writes, with opaque
 * stores (atomic and eventually visible, with no fence, lock or CAS: on the hot path a count costs a
 * load, an add and a store); readers on other threads sum the blocks of every thread with opaque
 * loads. Each counter is a field of its own rather than an array element, which saves the array's
 * load and bounds check on every count. When the owner dies its block is folded into the instance's
 * base totals, so no count is ever lost.
 */
public final class ThreadCounters {

	static final int SUCCESS_WITHOUT_RETRY = 0;

	static final int SUCCESS_WITH_RETRY = 1;

	static final int FAILED_WITHOUT_RETRY = 2;

	static final int FAILED_WITH_RETRY = 3;

	static final int ATTEMPTS = 4;

	static final int RECOVERIES = 5;

	static final int CIRCUIT_REJECTIONS = 6;

	static final int BUDGET_REJECTIONS = 7;

	/**
	 * Calls that took the short path and succeeded at once: each is one attempt and one success
	 * without retry, counted with one store instead of two.
	 */
	static final int PLAIN_SUCCESSES = 8;

	/** Calls that ended at their deadline (max-duration or a caller's {@link dev.retrykit.Deadline}). */
	static final int DEADLINE_REJECTIONS = 9;

	/** Calls that ended on a {@link dev.retrykit.DownstreamExhaustedException}, not retried. */
	static final int DOWNSTREAM_REJECTIONS = 10;

	static final int COUNT = 11;

	private static final VarHandle[] SLOTS = new VarHandle[COUNT];

	private static final VarHandle SUCCESS_WITHOUT_RETRY_COUNT = slot(SUCCESS_WITHOUT_RETRY, "successWithoutRetry");

	private static final VarHandle ATTEMPT_COUNT = slot(ATTEMPTS, "attempts");

	private static final VarHandle SUCCESS_WITH_RETRY_COUNT = slot(SUCCESS_WITH_RETRY, "successWithRetry");

	private static final VarHandle FAILED_WITHOUT_RETRY_COUNT = slot(FAILED_WITHOUT_RETRY, "failedWithoutRetry");

	private static final VarHandle FAILED_WITH_RETRY_COUNT = slot(FAILED_WITH_RETRY, "failedWithRetry");

	private static final VarHandle RECOVERY_COUNT = slot(RECOVERIES, "recoveries");

	private static final VarHandle CIRCUIT_REJECTION_COUNT = slot(CIRCUIT_REJECTIONS, "circuitRejections");

	private static final VarHandle BUDGET_REJECTION_COUNT = slot(BUDGET_REJECTIONS, "budgetRejections");

	private static final VarHandle PLAIN_SUCCESS_COUNT = slot(PLAIN_SUCCESSES, "plainSuccesses");

	private static final VarHandle DEADLINE_REJECTION_COUNT = slot(DEADLINE_REJECTIONS, "deadlineRejections");

	private static final VarHandle DOWNSTREAM_REJECTION_COUNT = slot(DOWNSTREAM_REJECTIONS, "downstreamRejections");

	private long successWithoutRetry;

	private long attempts;

	private long successWithRetry;

	private long failedWithoutRetry;

	private long failedWithRetry;

	private long recoveries;

	private long circuitRejections;

	private long budgetRejections;

	private long plainSuccesses;

	private long deadlineRejections;

	private long downstreamRejections;

	private final WeakReference<Thread> owner;

	ThreadCounters(Thread owner) {
		this.owner = new WeakReference<>(owner);
	}

	private static VarHandle slot(int slot, String field) {
		VarHandle handle = VarHandles.field(MethodHandles.lookup(), field, long.class);
		SLOTS[slot] = handle;
		return handle;
	}

	/** Counts an attempt. */
	public void attempt() {
		ATTEMPT_COUNT.setOpaque(this, this.attempts + 1);
	}

	/**
	 * Counts a call that succeeded on its first attempt and whose attempt was not counted: the
	 * attempt and the success at once.
	 */
	public void plainSuccess() {
		PLAIN_SUCCESS_COUNT.setOpaque(this, this.plainSuccesses + 1);
	}

	/** Counts a call that succeeded on its first attempt. */
	public void successWithoutRetry() {
		SUCCESS_WITHOUT_RETRY_COUNT.setOpaque(this, this.successWithoutRetry + 1);
	}

	/**
	 * Counts a finished call.
	 * @param success whether it succeeded
	 * @param retried whether it made more than one attempt
	 */
	public void outcome(boolean success, boolean retried) {
		if (success) {
			if (retried) {
				SUCCESS_WITH_RETRY_COUNT.setOpaque(this, this.successWithRetry + 1);
			}
			else {
				successWithoutRetry();
			}
		}
		else if (retried) {
			FAILED_WITH_RETRY_COUNT.setOpaque(this, this.failedWithRetry + 1);
		}
		else {
			FAILED_WITHOUT_RETRY_COUNT.setOpaque(this, this.failedWithoutRetry + 1);
		}
	}

	/** Counts a recovery. */
	public void recovery() {
		RECOVERY_COUNT.setOpaque(this, this.recoveries + 1);
	}

	/** Counts an attempt refused by an open circuit. */
	public void circuitRejection() {
		CIRCUIT_REJECTION_COUNT.setOpaque(this, this.circuitRejections + 1);
	}

	/** Counts a retry refused by the budget. */
	public void budgetRejection() {
		BUDGET_REJECTION_COUNT.setOpaque(this, this.budgetRejections + 1);
	}

	/** Counts a call that ended at its deadline. */
	public void deadlineRejection() {
		DEADLINE_REJECTION_COUNT.setOpaque(this, this.deadlineRejections + 1);
	}

	/** Counts a call that ended on a downstream's exhaustion. */
	public void downstreamRejection() {
		DOWNSTREAM_REJECTION_COUNT.setOpaque(this, this.downstreamRejections + 1);
	}

	long read(int slot) {
		return (long) SLOTS[slot].getOpaque(this);
	}

	boolean isOwnerDead() {
		Thread thread = this.owner.get();
		return thread == null || !thread.isAlive();
	}

}
