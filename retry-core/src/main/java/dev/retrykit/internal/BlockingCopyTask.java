package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;

import dev.retrykit.RetryFunction;
import org.jspecify.annotations.Nullable;

/**
 * One copy of a hedged blocking call ({@link HedgedBlockingCall}): the task the user's executor runs,
 * and the future of its outcome that the {@link HedgedCall} engine races. The attempt runs with the
 * copy's own context as {@link dev.retrykit.RetryContext#current()}; whatever it throws, an
 * {@link Error} included, completes the future exceptionally.
 *
 * <p>{@code cancel(true)} (a losing copy, or a call that ended without it) interrupts the thread while
 * it runs the attempt, and only then: once the attempt returned, the thread is no longer interrupted
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

	/** The thread running the attempt, {@code null} before and after; guarded by this. */
	private @Nullable Thread runner;

	/** Whether {@link #cancel} interrupted {@link #runner}; guarded by this. */
	private boolean interrupted;

	BlockingCopyTask(RetryFunction<? super A, T, ?> attempt, A argument, MutableRetryContext context) {
		this.attempt = attempt;
		this.argument = argument;
		this.context = context;
	}

	@Override
	public void run() {
		synchronized (this) {
			if (isDone()) {
				// Cancelled while queued: the call no longer waits for this copy.
				return;
			}
			this.runner = Thread.currentThread();
		}
		ContextStack stack = ContextStack.get();
		stack.push(this.context);
		T value = null;
		Throwable failure = null;
		try {
			value = this.attempt.apply(this.argument, this.context);
		}
		catch (Throwable ex) {
			failure = ex;
		}
		finally {
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
