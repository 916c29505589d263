package dev.retrykit.spi;

import java.util.concurrent.RejectedExecutionException;

/**
 * A task that wants to know when its {@link RetryScheduler} stops before the task's time: something
 * waits on it (the future of an async call, a failback task), and must end rather than wait forever.
 *
 * <p>A scheduler that stops with such a task pending calls {@link #abandon} once, instead of
 * {@link #run()}; a task whose handle was cancelled, or that ran, is never abandoned.
 * Implementations must be thread-safe: {@code abandon} runs on the thread that stops the scheduler.
 */
public interface AbandonableTask extends Runnable {

	/**
	 * Tells the task it will never run. Must not block; whatever it throws is caught and logged by the
	 * scheduler, which goes on abandoning the other tasks.
	 * @param reason why (the scheduler was stopped), for the task to report
	 */
	void abandon(RejectedExecutionException reason);

	/**
	 * Abandons {@code task} if it is an {@link AbandonableTask}: for scheduler implementations, which
	 * call it for every pending task as they stop.
	 * @param task a task that will not run
	 * @param reason why
	 * @return whether {@code task} was told (it is an {@code AbandonableTask} and did not throw)
	 */
	static boolean abandonIfAbandonable(Runnable task, RejectedExecutionException reason) {
		if (!(task instanceof AbandonableTask abandonable)) {
			return false;
		}
		try {
			abandonable.abandon(reason);
			return true;
		}
		catch (RuntimeException | Error ex) {
			System.getLogger(RetryScheduler.class.getName()).log(System.Logger.Level.WARNING,
					() -> "Task " + task + " failed when told that its scheduler stopped", ex);
			return false;
		}
	}

}
