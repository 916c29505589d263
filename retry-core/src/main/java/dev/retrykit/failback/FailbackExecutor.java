package dev.retrykit.failback;

import java.util.List;

/**
 * Runs fire-and-forget operations and retries the failed ones in the background, as Apache Dubbo's
 * failback registry does: a task runs at once on the caller's thread; if it fails, it is retried on
 * the instance's scheduler with the instance's policy and backoff until it succeeds or is exhausted.
 *
 * <ul>
 * <li>At most one pending task per key: submitting a key again replaces (cancels) the pending task.
 * <li>At most {@link #capacity()} pending tasks: a submit of a new key while that many are pending is
 * refused with a {@link java.util.concurrent.RejectedExecutionException} before the task runs, and
 * counted in {@link #rejectedCount()} — a long outage cannot fill the heap, and nothing is dropped
 * without its submitter knowing.
 * <li>An exhausted task is reported to the listeners and kept in a bounded list; when the list is
 * full the oldest is dropped and counted in {@link #exhaustedDropped()} — never silently.
 * <li>{@link #shutdown()} cancels and returns what was still pending.
 * </ul>
 *
 * <p>Obtained from {@code RetryRegistry.failback(name)}. Thread-safe.
 */
public interface FailbackExecutor {

	/** {@return the name of the instance whose policy it uses} */
	String getName();

	/**
	 * Runs the task now; if it fails, queues it for background retries.
	 * @param key identifies the operation; a pending task with an equal key is replaced
	 * @param task the operation
	 * @return {@code true} if it succeeded now, {@code false} if it was queued (or exhausted at once)
	 * @throws java.util.concurrent.RejectedExecutionException after {@link #shutdown()}, or when
	 * {@link #capacity()} tasks are pending and none has this key (the task did not run; counted in
	 * {@link #rejectedCount()})
	 */
	boolean submit(Object key, Runnable task);

	/**
	 * Runs the task now; if it fails, either queues it ({@code check == false}, as
	 * {@link #submit(Object, Runnable)}) or rethrows the failure unchanged and queues nothing
	 * ({@code check == true}, Dubbo's {@code check=true}).
	 * @param key identifies the operation
	 * @param task the operation
	 * @param check whether to throw instead of queueing; a checked submit never queues, so the
	 * {@linkplain #capacity() capacity} does not limit it
	 * @return {@code true} if it succeeded now
	 * @throws java.util.concurrent.RejectedExecutionException as {@link #submit(Object, Runnable)}
	 */
	boolean submit(Object key, Runnable task, boolean check);

	/**
	 * Cancels the pending task of a key.
	 * @param key the key of a pending task
	 * @return whether a pending task was cancelled
	 */
	boolean cancel(Object key);

	/**
	 * Runs every pending task again now, for when the downstream is known to be back.
	 * @return the number of tasks rescheduled
	 */
	int retryAllNow();

	/** {@return the tasks waiting for a retry, oldest first} */
	List<FailbackTask> pendingTasks();

	/** {@return the exhausted tasks kept, oldest first} */
	List<FailbackTask> exhaustedTasks();

	/** {@return the number of pending tasks} */
	int pendingCount();

	/** {@return the number of tasks exhausted since start, including those no longer kept} */
	long exhaustedCount();

	/** {@return the number of exhausted tasks dropped from the bounded list because it was full} */
	long exhaustedDropped();

	/** {@return the number of pending tasks replaced by a new submit with the same key} */
	long replacedCount();

	/**
	 * {@return the most tasks kept pending at once (the instance's
	 * {@code RetryConfig.getFailbackCapacity()} when the executor was created)}
	 */
	int capacity();

	/** {@return the number of submits refused because {@link #capacity()} tasks were pending} */
	long rejectedCount();

	/**
	 * Registers a listener of this executor's tasks, told from now on.
	 * @param listener told when a task is queued, succeeds in the background, or is exhausted
	 */
	void addListener(FailbackListener listener);

	/**
	 * Stops: cancels every pending retry, refuses new tasks, and returns what was still pending so the
	 * caller can log or persist it.
	 * @return the tasks that were pending
	 */
	List<FailbackTask> shutdown();

	/** {@return whether {@link #shutdown()} was called} */
	boolean isShutdown();

}
