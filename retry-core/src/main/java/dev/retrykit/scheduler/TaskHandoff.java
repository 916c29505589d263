package dev.retrykit.scheduler;

import java.lang.System.Logger.Level;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hands due tasks to the executor and accounts for them: every task is counted as fired, and a task
 * the executor refuses is also counted as rejected and given to the {@link RejectedTaskHandler}.
 *
 * <p>Thread-safe; called by the thread driving the wheel. The executor's refusal is whatever
 * {@code execute} throws: a {@link RejectedExecutionException}, or any other exception or
 * {@link Error} (then wrapped in one). With an inline executor that includes whatever the task itself
 * throws. Nothing thrown here reaches the thread driving the wheel, not even by the handler.
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
		catch (Throwable ex) {
			// An Error too (OutOfMemoryError "unable to create native thread" from a pool that adds a
			// thread, or anything a task run inline throws): letting it out would end the timer thread,
			// and every later task would wait forever.
			reject(task, ex);
		}
	}

	long firedCount() {
		return this.fired.sum();
	}

	long rejectedCount() {
		return this.rejected.sum();
	}

	/**
	 * Hands a task that will not run (the timer failed) to the handler; not counted as a rejection by
	 * the executor.
	 */
	void handBack(Runnable task, RejectedExecutionException cause) {
		notifyHandler(task, cause);
	}

	private void reject(Runnable task, Throwable ex) {
		this.rejected.increment();
		RejectedExecutionException cause = (ex instanceof RejectedExecutionException ree) ? ree
				: new RejectedExecutionException("Executor " + this.executor + " failed to accept a task ("
						+ ex + ")", ex);
		notifyHandler(task, cause);
	}

	private void notifyHandler(Runnable task, RejectedExecutionException cause) {
		try {
			this.rejectionHandler.rejected(task, cause);
		}
		catch (Throwable handlerFailure) {
			// The timer must keep going; the rejection itself stays counted.
			handlerFailure.addSuppressed(cause);
			System.getLogger(TimingWheelScheduler.class.getName())
				.log(Level.ERROR, "RejectedTaskHandler " + this.rejectionHandler + " failed", handlerFailure);
		}
	}

}
