package dev.retrykit.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a task on several threads that all start at once, for stress tests.
 *
 * <p>{@link #run} owns its thread pool: when it returns or throws, the pool has been shut down and
 * every one of its threads has ended.
 */
public final class Concurrently {

	/** How long all the tasks together may take before {@link #run} gives up with a {@link TimeoutException}. */
	public static final long TIMEOUT_SECONDS = 20;

	private static final long SHUTDOWN_SECONDS = 10;

	private Concurrently() {
	}

	/** A task that knows which of the threads runs it, {@code 0} to {@code threads - 1}. */
	@FunctionalInterface
	public interface IndexedTask {

		void run(int index) throws Exception;

	}

	/**
	 * Runs {@code task} once on each of {@code threads} threads, released together by a latch, and
	 * waits for all of them.
	 * @param threads how many threads run the task
	 * @param task the task; its argument is the index of the thread
	 * @throws Exception the first failure of a task (any later ones are suppressed in it), or a
	 * {@link TimeoutException} if the tasks did not all end within {@link #TIMEOUT_SECONDS}
	 */
	public static void run(int threads, IndexedTask task) throws Exception {
		if (threads < 1) {
			throw new IllegalArgumentException("threads must be at least 1, was " + threads);
		}
		List<Thread> workers = Collections.synchronizedList(new ArrayList<>());
		ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
			Thread worker = new Thread(runnable, "concurrently-" + workers.size());
			worker.setDaemon(true);
			workers.add(worker);
			return worker;
		});
		Throwable failure = null;
		try {
			AtomicReference<Throwable> first = new AtomicReference<>();
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				int index = i;
				futures.add(pool.submit(() -> {
					start.await();
					try {
						task.run(index);
					}
					catch (Throwable ex) {
						first.compareAndSet(null, ex);
						throw ex;
					}
					return null;
				}));
			}
			start.countDown();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
			List<Throwable> failures = new ArrayList<>();
			for (Future<?> future : futures) {
				try {
					future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (ExecutionException ex) {
					failures.add(ex.getCause());
				}
				catch (TimeoutException ex) {
					TimeoutException timeout = new TimeoutException(
							"the tasks did not all end within " + TIMEOUT_SECONDS + " s");
					failures.forEach(timeout::addSuppressed);
					throw timeout;
				}
			}
			if (!failures.isEmpty()) {
				Throwable primary = (first.get() != null) ? first.get() : failures.get(0);
				for (Throwable other : failures) {
					if (other != primary) {
						primary.addSuppressed(other);
					}
				}
				throw sneaky(primary);
			}
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			shutDown(pool, workers, failure);
		}
	}

	private static void shutDown(ExecutorService pool, List<Thread> workers, Throwable failure)
			throws InterruptedException {
		pool.shutdownNow();
		boolean ended = pool.awaitTermination(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
		if (ended) {
			// The pool terminates as its last worker leaves its loop; the threads end just after.
			for (Thread worker : List.copyOf(workers)) {
				worker.join(TimeUnit.SECONDS.toMillis(SHUTDOWN_SECONDS));
				ended &= !worker.isAlive();
			}
		}
		if (!ended) {
			AssertionError stuck = new AssertionError(
					"worker threads still running " + SHUTDOWN_SECONDS + " s after the pool was shut down");
			if (failure == null) {
				throw stuck;
			}
			failure.addSuppressed(stuck);
		}
	}

	@SuppressWarnings("unchecked")
	private static <T extends Throwable> T sneaky(Throwable failure) throws T {
		throw (T) failure;
	}

}
