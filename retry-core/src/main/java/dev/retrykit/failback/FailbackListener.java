package dev.retrykit.failback;

/**
 * Told what happens to failback tasks. Every method is a no-op by default. Called on the thread that
 * ran the attempt (the caller's or the scheduler's executor); whatever a listener throws, an
 * {@link Error} included, is caught, counted as the instance's listener failure and logged; it changes
 * neither the task nor the submitter's outcome.
 * Implementations must be thread-safe.
 */
public interface FailbackListener {

	/**
	 * A failed task was queued for a background retry.
	 * @param name the instance
	 * @param task the task
	 */
	default void onQueued(String name, FailbackTask task) {
	}

	/**
	 * A queued task succeeded in the background.
	 * @param name the instance
	 * @param task the task
	 */
	default void onSucceeded(String name, FailbackTask task) {
	}

	/**
	 * A task's retries are exhausted (or its failure is not retryable): it will not run again.
	 * @param name the instance
	 * @param task the task
	 * @param lastFailure its last failure
	 */
	default void onExhausted(String name, FailbackTask task, Throwable lastFailure) {
	}

}
