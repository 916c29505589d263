package dev.retrykit.spi;

import java.util.concurrent.TimeUnit;

/**
 * Runs a task after a delay without blocking the caller: the clock behind async retries and failback.
 *
 * <p>The default implementation is the hashed timing wheel of {@code dev.retrykit.scheduler}. An
 * implementation must never run a task on the thread that keeps its time when that task is user
 * code: it hands due tasks to an executor. Implementations must be thread-safe.
 *
 * <p>An implementation that can be stopped must not leave a task pending in silence: when it stops,
 * every pending task that is an {@link AbandonableTask} is {@linkplain AbandonableTask#abandon
 * abandoned} (see {@link AbandonableTask#abandonIfAbandonable}), and later {@code schedule} calls throw
 * {@link java.util.concurrent.RejectedExecutionException}. retrykit's async calls and failback tasks
 * rely on it to end when the scheduler stops.
 */
public interface RetryScheduler {

	/**
	 * Schedules a task.
	 * @param task the task to run once the delay has passed
	 * @param delay the delay, zero or more
	 * @param unit the unit of the delay
	 * @return a handle that cancels the task
	 * @throws java.util.concurrent.RejectedExecutionException if the scheduler has been stopped
	 */
	ScheduledTask schedule(Runnable task, long delay, TimeUnit unit);

}
