package dev.retrykit.internal;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * The listener callbacks of a hedged call ({@link HedgeRace}), told outside the call's lock: decisions
 * are made under the lock, and what they tell is recorded there ({@link Told}) and told by the same
 * thread once the lock is released. So a slow or blocking listener holds up only the thread it runs on,
 * never another copy, the timer's pass or the caller's future; a listener that calls back into the call
 * (cancels or completes its future, reads its context) finds it in a settled state.
 *
 * <p>Order per call: each copy's {@code beforeAttempt} and {@code attemptReturned} are told on the
 * thread that runs its code, around it, and its outcome's callbacks after its {@code attemptReturned};
 * callbacks about different copies may run at once on different threads, as
 * {@link dev.retrykit.RetryListener} says. The call's ending ({@code close}, with the recovery and the
 * failure of a call that did not succeed) waits until every callback being told is over ({@link #end}),
 * so {@code close} is told once and after every other callback, but for the {@code attemptReturned} of a
 * copy whose code was still running as the call ended (as today, and as the listener's contract says).
 * The ending never waits for a copy's own code. A call that succeeds completes its caller's future at
 * once; only its {@code close} may come later.
 *
 * <p>Only a call whose instance has listeners has one (none is allocated otherwise). Thread-safe; its
 * own lock is never held while user code runs, and may be taken under the race's lock.
 */
final class HedgeNotices {

	/** Tellings in progress outside the race's lock (batches and copies' attempts); guarded by this. */
	private int open;

	/** The call's ending, held while tellings are in progress; guarded by this. */
	private @Nullable Runnable held;

	/** Whether the call's ending was asked for: no copy's attempt starts telling after it; guarded by this. */
	private boolean ending;

	/** A telling starts; under the race's lock, so that an ending decided after it waits for it. */
	synchronized void enter() {
		this.open++;
	}

	/**
	 * A blocking copy's attempt starts telling on its thread, unless the call's ending was asked for.
	 * @return whether it may tell (then {@link #exit} follows)
	 */
	synchronized boolean enterUnlessEnding() {
		if (this.ending) {
			return false;
		}
		this.open++;
		return true;
	}

	/**
	 * Tells {@code attemptReturned} about a copy whose code returned: within a telling, unless the call's
	 * ending was asked for meanwhile; then at once all the same (after {@code close}, as
	 * {@link dev.retrykit.RetryListener#attemptReturned} allows), so that what its {@code beforeAttempt}
	 * put in scope on this thread is taken out.
	 */
	void attemptReturned(Listeners listeners, RetryContext told) {
		if (!enterUnlessEnding()) {
			listeners.attemptReturned(told);
			return;
		}
		try {
			listeners.attemptReturned(told);
		}
		finally {
			exit();
		}
	}

	/** A telling is over; the last one runs the ending held meanwhile, if any. */
	void exit() {
		Runnable run;
		synchronized (this) {
			if (--this.open > 0 || this.held == null) {
				return;
			}
			run = this.held;
			this.held = null;
		}
		run.run();
	}

	/**
	 * Runs the call's ending (its {@code close}, and for a call that did not succeed its recovery and
	 * failure) now, or, while tellings are in progress, on the thread that ends the last of them. Asked
	 * for once per call (the race decides its end once).
	 */
	void end(Runnable callEnding) {
		synchronized (this) {
			this.ending = true;
			if (this.open > 0) {
				Runnable before = this.held;
				this.held = (before == null) ? callEnding : () -> {
					before.run();
					callEnding.run();
				};
				return;
			}
		}
		callEnding.run();
	}

	/**
	 * What the outcome of one copy tells the listeners, recorded under the race's lock by
	 * {@link CallLifecycle#afterCopy} in the order it decided, told after the lock by {@link #tell}.
	 * Not thread-safe: one thread records, then tells.
	 */
	static final class Told {

		private final RetryContext told;

		private boolean error;

		private @Nullable Throwable failure;

		private boolean retry;

		private long delayNanos;

		private boolean success;

		private @Nullable Object result;

		private @Nullable RetryContext close;

		Told(RetryContext told) {
			this.told = told;
		}

		void onError(@Nullable Throwable failure) {
			this.error = true;
			this.failure = failure;
		}

		void onRetry(long delayNanos) {
			this.retry = true;
			this.delayNanos = delayNanos;
		}

		void onSuccess(@Nullable Object result) {
			this.success = true;
			this.result = result;
		}

		/** The call succeeded: its context is to be closed, last. */
		void close(RetryContext call) {
			this.close = call;
		}

		/** Tells the listeners what was recorded, then ends this telling ({@link HedgeNotices#enter} came first). */
		void tell(HedgeNotices notices, Listeners listeners) {
			try {
				if (this.error) {
					listeners.onError(this.told, this.failure);
				}
				if (this.retry) {
					listeners.onRetry(this.told, this.delayNanos);
				}
				if (this.success) {
					listeners.onSuccess(this.told, this.result);
				}
			}
			finally {
				RetryContext call = this.close;
				if (call != null) {
					notices.end(() -> listeners.close(call, null));
				}
				notices.exit();
			}
		}

	}

}
