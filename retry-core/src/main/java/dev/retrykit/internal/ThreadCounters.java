package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * The counters of one instance written by one thread. Only the owning thread writes (release stores,
 * no lock and no CAS, so counting costs a plain store on the hot path); readers on other threads sum
 * the blocks of every thread with acquire loads. When the owner dies its block is folded into the
 * instance's base totals, so no count is ever lost.
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

	static final int COUNT = 8;

	private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);

	private final long[] slots = new long[COUNT];

	private final WeakReference<Thread> owner;

	ThreadCounters(Thread owner) {
		this.owner = new WeakReference<>(owner);
	}

	/** Counts an attempt. */
	public void attempt() {
		add(ATTEMPTS);
	}

	/** Counts a call that succeeded on its first attempt. */
	public void successWithoutRetry() {
		add(SUCCESS_WITHOUT_RETRY);
	}

	/**
	 * Counts a finished call.
	 * @param success whether it succeeded
	 * @param retried whether it made more than one attempt
	 */
	public void outcome(boolean success, boolean retried) {
		add(success ? (retried ? SUCCESS_WITH_RETRY : SUCCESS_WITHOUT_RETRY)
				: (retried ? FAILED_WITH_RETRY : FAILED_WITHOUT_RETRY));
	}

	/** Counts a recovery. */
	public void recovery() {
		add(RECOVERIES);
	}

	/** Counts an attempt refused by an open circuit. */
	public void circuitRejection() {
		add(CIRCUIT_REJECTIONS);
	}

	/** Counts a retry refused by the budget. */
	public void budgetRejection() {
		add(BUDGET_REJECTIONS);
	}

	private void add(int slot) {
		SLOTS.setRelease(this.slots, slot, this.slots[slot] + 1);
	}

	long read(int slot) {
		return (long) SLOTS.getAcquire(this.slots, slot);
	}

	boolean isOwnerDead() {
		Thread thread = this.owner.get();
		return thread == null || !thread.isAlive();
	}

}
