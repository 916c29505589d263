package dev.retrykit.spi;

/**
 * A handle on a task given to a {@link RetryScheduler}. Thread-safe.
 */
public interface ScheduledTask {

	/**
	 * Cancels the task if it has not started. A cancelled task never runs and the scheduler drops its
	 * reference to the task at once.
	 * @return {@code true} if this call cancelled it, {@code false} if it had already run, been
	 * cancelled, or been handed to its executor
	 */
	boolean cancel();

	/** {@return whether the task was cancelled before it ran} */
	boolean isCancelled();

	/** {@return whether the task has fired (been handed to its executor)} */
	boolean isExpired();

}
