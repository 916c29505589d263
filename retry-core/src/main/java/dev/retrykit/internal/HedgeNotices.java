package dev.retrykit.internal;

import java.util.ArrayDeque;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * The listener callbacks of a hedged call ({@link HedgeRace}), told outside the call's lock. What a
 * copy's outcome tells ({@code onError}, {@code onRetry}, {@code onSuccess}, and a success's
 * {@code close}) is recorded under the lock ({@link Told}) and queued in the order decided; after the
 * lock, the deciding thread tells the queue, unless another thread is telling it already, which then
 * tells this batch too (a serialized drain). So the outcome callbacks of one call never run at once
 * and never under the lock, as they did under it, and a slow or blocking listener holds up only the
 * thread telling it: never another copy's start, the timer's pass or the caller's future, which the
 * winner's thread completes at once.
 *
 * <p>A copy's {@code beforeAttempt} and {@code attemptReturned} are told on the thread that runs its
 * code, around it (what a listener puts in scope there must be current where the code runs), so they
 * may run at the same time as other copies' callbacks, as {@link dev.retrykit.RetryListener} says; per
 * copy, its outcome's callbacks come after its {@code attemptReturned}. The call's ending ({@code close},
 * with the recovery and the failure of a call that did not succeed) waits until the queue is told and
 * every {@code beforeAttempt} or {@code attemptReturned} being told is over ({@link #end}), never for a
 * copy's own code: {@code close} is told once, after every other callback but the
 * {@code attemptReturned} of a copy whose code was still running as the call ended (as the listener's
 * contract allows). A call that succeeds completes its caller's future at once; only its {@code close}
 * may come later.
 *
 * <p>Only a call whose instance has listeners has one (none is allocated otherwise). Thread-safe; its
 * own lock is never held while user code runs, and may be taken under the race's lock.
 */
final class HedgeNotices {

	/** Copies' {@code beforeAttempt} and {@code attemptReturned} being told; guarded by this. */
	private int open;

	/** The outcomes decided and not yet told, in the order decided; guarded by this. */
	private final ArrayDeque<Told> queue = new ArrayDeque<>(4);

	/** Whether a thread is telling the queue; guarded by this. */
	private boolean draining;

	/** The call's ending, held while callbacks are being told; guarded by this. */
	private @Nullable Runnable held;

	/** Whether the call's ending was asked for: no copy's attempt starts telling after it; guarded by this. */
	private boolean ending;

	/** A copy's {@code beforeAttempt} is to be told; under the race's lock, so that an ending decided after it waits for it. */
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
	 * Tells {@code attemptReturned} about a copy whose code returned: counted as being told, unless the
	 * call's ending was asked for meanwhile; then at once all the same (after {@code close}, as
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

	/** A copy's callback is told; the last callback runs the ending held meanwhile, if any. */
	void exit() {
		Runnable run;
		synchronized (this) {
			this.open--;
			run = takeEndingIfIdle();
		}
		if (run != null) {
			run.run();
		}
	}

	/** Under the race's lock: a copy's outcome, to be told in the order decided ({@link #drain}). */
	synchronized void add(Told outcome) {
		this.queue.add(outcome);
	}

	/**
	 * After the race's lock: tells the queued outcomes, unless another thread is telling them (it then
	 * tells the ones this thread queued too); the thread that empties the queue runs the ending held
	 * meanwhile, if nothing else is being told.
	 */
	void drain(Listeners listeners) {
		synchronized (this) {
			if (this.draining) {
				return;
			}
			this.draining = true;
		}
		for (;;) {
			Told next;
			Runnable run = null;
			synchronized (this) {
				next = this.queue.poll();
				if (next == null) {
					this.draining = false;
					run = takeEndingIfIdle();
				}
			}
			if (next == null) {
				if (run != null) {
					run.run();
				}
				return;
			}
			try {
				next.tell(this, listeners);
			}
			catch (Throwable ex) {
				// Listeners are contained (ListenerCalls): only a failure of the engine's own gets here.
				synchronized (this) {
					this.draining = false;
				}
				throw ex;
			}
		}
	}

	/**
	 * Runs the call's ending (its {@code close}, and for a call that did not succeed its recovery and
	 * failure) now, or, while callbacks are being told, on the thread that tells the last of them. Asked
	 * for once per call (the race decides its end once).
	 */
	void end(Runnable callEnding) {
		Runnable run;
		synchronized (this) {
			this.ending = true;
			Runnable before = this.held;
			this.held = (before == null) ? callEnding : () -> {
				before.run();
				callEnding.run();
			};
			run = takeEndingIfIdle();
		}
		if (run != null) {
			run.run();
		}
	}

	/** Guarded by this: the ending held, taken to run now if nothing is being told, else {@code null}. */
	private @Nullable Runnable takeEndingIfIdle() {
		Runnable run = this.held;
		if (run == null || this.open > 0 || this.draining || !this.queue.isEmpty()) {
			return null;
		}
		this.held = null;
		return run;
	}

	/**
	 * What the outcome of one copy tells the listeners, recorded under the race's lock by
	 * {@link CallLifecycle#afterCopy} in the order it decided, told after the lock by {@link #tell}.
	 * Not thread-safe: one thread records it under the race's lock, one drain tells it.
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

		/** Tells the listeners what was recorded; a success's {@code close} is the call's ending ({@link HedgeNotices#end}). */
		void tell(HedgeNotices notices, Listeners listeners) {
			if (this.error) {
				listeners.onError(this.told, this.failure);
			}
			if (this.retry) {
				listeners.onRetry(this.told, this.delayNanos);
			}
			if (this.success) {
				listeners.onSuccess(this.told, this.result);
			}
			RetryContext call = this.close;
			if (call != null) {
				notices.end(() -> listeners.close(call, null));
			}
		}

	}

}
