package dev.retrykit.spring.boot.autoconfigure;

import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The threads that run async retries and failback attempts in an application that has no task
 * executor of its own (no {@code applicationTaskExecutor}, not exactly one {@link Executor} bean): a
 * small pool named {@code retry-attempt-N}, so that user code never runs on
 * {@code ForkJoinPool.commonPool()}, the timing wheel's default. The pool is created on first use only
 * and shut down with the context, after the wheel (which depends on this bean): no task is handed to
 * it afterwards, and tasks it has already accepted still run, so that their futures complete.
 *
 * <p>Deliberately not an {@link Executor} itself: as a bean of that type it would count as the
 * application's executor for Boot's {@code @ConditionalOnMissingBean(Executor.class)} and for
 * {@code @Async}. Thread-safe.
 */
final class FallbackTaskExecutor implements AutoCloseable {

	/** The prefix of the pool's thread names. */
	static final String THREAD_NAME_PREFIX = "retry-attempt-";

	private @Nullable ThreadPoolTaskExecutor pool;

	private boolean closed;

	/**
	 * @return the pool, created at the first call
	 * @throws IllegalStateException once closed
	 */
	synchronized Executor executor() {
		if (this.closed) {
			throw new IllegalStateException("The retry attempt executor is shut down (the application context closed)");
		}
		if (this.pool == null) {
			ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();
			pool.setThreadNamePrefix(THREAD_NAME_PREFIX);
			// A few threads, idle ones ending: retries are waits more than work; the queue holds the rest.
			pool.setCorePoolSize(Math.max(2, Runtime.getRuntime().availableProcessors()));
			pool.setAllowCoreThreadTimeOut(true);
			pool.setWaitForTasksToCompleteOnShutdown(true);
			pool.initialize();
			this.pool = pool;
		}
		return this.pool;
	}

	/** Stops taking tasks; those already accepted still run. Called by the context on close. */
	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.pool != null) {
			this.pool.shutdown();
		}
	}

}
