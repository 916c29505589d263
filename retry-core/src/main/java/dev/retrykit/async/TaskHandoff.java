package dev.retrykit.async;

import java.lang.System.Logger.Level;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hands due tasks to the executor and accounts for them: every task is counted as fired, and a task
 * the executor refuses is also counted as rejected and given to the {@link RejectedTaskHandler}.
 *
 * <p>Thread-safe; called by the thread driving the wheel. The executor's refusal is whatever
 * {@code execute} throws: a {@link RejectedExecutionException}, or any other runtime exception (then
 * wrapped in one). With an inline executor that includes exceptions thrown by the task itself.
 */
final class TaskHandoff {

	private final Executor executor;

	private final RejectedTaskHandler rejectionHandler;

	private final LongAdder fired = new LongAdder();

	private final LongAdder rejected = new LongAdder();

	TaskHandoff(Executor executor, RejectedTaskHandler rejectionHandler) {
		this.executor = executor;
		this.rejectionHandler = rejectionHandler;
	}

	void handOff(Runnable task) {
		this.fired.increment();
		try {
			this.executor.execute(task);
		}
		catch (RuntimeException ex) {
			reject(task, ex);
		}
	}

	long firedCount() {
		return this.fired.sum();
	}

	long rejectedCount() {
		return this.rejected.sum();
	}

	private void reject(Runnable task, RuntimeException ex) {
		this.rejected.increment();
		RejectedExecutionException cause = (ex instanceof RejectedExecutionException ree) ? ree
				: new RejectedExecutionException("Executor " + this.executor + " failed to accept a task", ex);
		try {
			this.rejectionHandler.rejected(task, cause);
		}
		catch (RuntimeException handlerFailure) {
			// The timer must keep going; the rejection itself stays counted.
			handlerFailure.addSuppressed(cause);
			System.getLogger(TimingWheelScheduler.class.getName())
				.log(Level.ERROR, "RejectedTaskHandler " + this.rejectionHandler + " failed", handlerFailure);
		}
	}

}
