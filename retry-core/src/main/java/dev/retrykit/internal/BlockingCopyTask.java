package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryFunction;
import org.jspecify.annotations.Nullable;

/**
 * One copy of a hedged blocking call ({@link HedgedBlockingCall}): the task the user's executor runs,
 * and the future of its outcome that the {@link HedgedCall} engine races. The attempt runs with the
 * copy's own context as {@link dev.retrykit.RetryTemplate#currentContext()}, between the listeners'
 * {@code beforeAttempt} and {@code attemptReturned} on the same thread (so an observation they open for the
 * attempt is current where it runs); whatever it throws, an {@link Error} included, completes the future
 * exceptionally.
 *
 * <p>It never runs the attempt on the thread of the call's caller (an executor that runs a task on the
 * thread that submits it, such as a caller-runs rejection policy or a direct executor): it fails with a
 * {@link RejectedExecutionException} instead, as a copy the executor refused, so that the caller never
 * waits inside its own copy and the call still hedges. A copy the executor dropped without running it
 * ({@link #dropIfNeverRun}) fails likewise.
 *
 * <p>{@code cancel(true)} (a losing copy, or a call that ended without it, when the instance's
 * {@code interruptLosers} is set) interrupts the thread while it runs the attempt, and only then: once the attempt returned, the thread is no longer interrupted
 * by the copy, and an interrupt the copy sent that the attempt did not consume is cleared, so that a
 * pooled thread takes no stray interrupt to its next task. A copy cancelled before the executor ran
 * it does not run the attempt. Its late outcome is ignored: a cancelled future stays cancelled.
 * Thread-safe.
 *
 * @param <A> the attempt's argument type
 * @param <T> the result type
 */
final class BlockingCopyTask<A, T> extends CompletableFuture<T> implements Runnable {

	private final RetryFunction<? super A, T, ?> attempt;

	private final A argument;

	private final MutableRetryContext context;

	/** The thread of the call's caller, which never runs the attempt. */
	private final Thread caller;

	/** The call's listeners, told about this copy on the thread that runs it. */
	private final Listeners listeners;

	/** What the listeners are told about this copy. */
	private final RetryContext told;

	/** The call's tellings, which its {@code close} waits for, or {@code null} without listeners. */
	private final @Nullable HedgeNotices notices;

	/** Whether a thread took the task to run it; guarded by this. */
	private boolean taken;

	/** The thread running the attempt, {@code null} before and after; guarded by this. */
	private @Nullable Thread runner;

	/** Whether {@link #cancel} interrupted {@link #runner}; guarded by this. */
	private boolean interrupted;

	BlockingCopyTask(RetryFunction<? super A, T, ?> attempt, A argument, MutableRetryContext context, Thread caller,
			Listeners listeners, RetryContext told, @Nullable HedgeNotices notices) {
		this.attempt = attempt;
		this.argument = argument;
		this.context = context;
		this.caller = caller;
		this.listeners = listeners;
		this.told = told;
		this.notices = notices;
	}

	@Override
	public void run() {
		boolean onCaller = Thread.currentThread() == this.caller;
		synchronized (this) {
			if (this.taken || isDone()) {
				// Cancelled while queued, or dropped: the call no longer waits for this copy.
				return;
			}
			this.taken = true;
			if (!onCaller) {
				this.runner = Thread.currentThread();
			}
		}
		if (onCaller) {
			completeExceptionally(new RejectedExecutionException("The executor ran copy "
					+ (this.context.getRetryCount() + 1) + " of retry '" + this.context.getName()
					+ "' on the calling thread (a caller-runs policy, or a direct executor), which waits for"
					+ " the copies: the copy is not run there and counts as refused"));
			return;
		}
		HedgeNotices telling = this.notices;
		boolean heard = !this.listeners.isEmpty();
		if (heard && telling != null && !telling.enterUnlessEnding()) {
			// The call is ending, this copy settled with it: no attempt, and no beforeAttempt after its close.
			synchronized (this) {
				this.runner = null;
			}
			super.cancel(false);
			return;
		}
		ContextStack stack = ContextStack.get();
		stack.push(this.context);
		// The copy's code, and the calls it makes downstream, see the call's deadline on this thread.
		dev.retrykit.Deadline.Scope deadline = CallDeadlines.enter(this.context);
		T value = null;
		Throwable failure = null;
		try {
			if (heard) {
				// On this thread, so that what a listener opens for the attempt (an observation's scope) is current here.
				try {
					this.listeners.beforeAttempt(this.told);
				}
				finally {
					if (telling != null) {
						// The call's ending waits for this callback, never for the attempt.
						telling.exit();
					}
				}
			}
			value = this.attempt.apply(this.argument, this.context);
		}
		catch (Throwable ex) {
			failure = ex;
		}
		finally {
			if (heard && telling != null) {
				telling.attemptReturned(this.listeners, this.told);
			}
			else if (heard) {
				this.listeners.attemptReturned(this.told);
			}
			CallDeadlines.exit(deadline);
			stack.pop();
			synchronized (this) {
				this.runner = null;
				if (this.interrupted) {
					// The copy's own interrupt, sent because it lost: not the thread's next task's business.
					Thread.interrupted();
				}
			}
		}
		if (failure == null) {
			complete(value);
		}
		else {
			completeExceptionally(failure);
		}
	}

	/**
	 * Fails the copy with {@code reason} if no thread took it yet: its executor will never run it
	 * (it terminated, or was shut down with the copy no longer queued).
	 * @return whether the copy was failed so
	 */
	boolean dropIfNeverRun(RejectedExecutionException reason) {
		synchronized (this) {
			if (this.taken) {
				return false;
			}
			this.taken = true;
		}
		return completeExceptionally(reason);
	}

	/** @return whether a thread took the task to run it, or it was dropped */
	synchronized boolean isTaken() {
		return this.taken;
	}

	/**
	 * Cancels the copy: its future completes with a {@link java.util.concurrent.CancellationException},
	 * and with {@code mayInterruptIfRunning} the thread running its attempt, if any, is interrupted.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		if (cancelled && mayInterruptIfRunning) {
			synchronized (this) {
				Thread thread = this.runner;
				if (thread != null) {
					this.interrupted = true;
					thread.interrupt();
				}
			}
		}
		return cancelled;
	}

	@Override
	public String toString() {
		return "BlockingCopyTask[attempt " + (this.context.getRetryCount() + 1) + ", " + super.toString() + "]";
	}

}
