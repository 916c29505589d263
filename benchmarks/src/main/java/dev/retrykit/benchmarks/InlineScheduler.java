package dev.retrykit.benchmarks;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A scheduler that runs every task at once on the calling thread and only accepts a zero delay: what
 * lets the peers' async retries run a zero-delay retry without a thread hop, as retrykit does on its
 * own (its zero-delay retries never reach a scheduler).
 *
 * <p>Resilience4j 2.4 hands every retry to its {@link ScheduledExecutorService}, even with a zero wait,
 * and Failsafe 3.3 hands every async attempt, the first one included, to its
 * {@link dev.failsafe.spi.Scheduler}. With a real executor a benchmark would measure two thread hops
 * and a wake-up per retry, not the library. This double allocates nothing: it returns one shared,
 * already-done future.
 *
 * <p>Thread-safe (stateless). Not a general executor: a non-zero delay throws, so a benchmark that
 * was misconfigured with a delay fails instead of silently running early.
 */
final class InlineScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	/** The one instance, for Resilience4j; it holds no state. */
	static final InlineScheduler INSTANCE = new InlineScheduler();

	/** The same, as Failsafe's scheduler SPI (Failsafe's callables catch the attempt's failure themselves). */
	static final dev.failsafe.spi.Scheduler FAILSAFE = INSTANCE::schedule;

	private InlineScheduler() {
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		requireZero(delay);
		command.run();
		return Done.INSTANCE;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		requireZero(delay);
		try {
			callable.call();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		return (ScheduledFuture<V>) Done.INSTANCE;
	}

	@Override
	public void execute(Runnable command) {
		command.run();
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		throw new UnsupportedOperationException("InlineScheduler runs one-shot tasks only");
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		throw new UnsupportedOperationException("InlineScheduler runs one-shot tasks only");
	}

	@Override
	public void shutdown() {
	}

	@Override
	public List<Runnable> shutdownNow() {
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		return false;
	}

	@Override
	public boolean isTerminated() {
		return false;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return false;
	}

	private static void requireZero(long delay) {
		if (delay != 0) {
			throw new IllegalStateException("InlineScheduler got a delay of " + delay + ": the benchmark must be configured for zero delay");
		}
	}

	/** The future of a task that has already run; its result is not kept. */
	private static final class Done implements ScheduledFuture<Object> {

		static final Done INSTANCE = new Done();

		@Override
		public long getDelay(TimeUnit unit) {
			return 0;
		}

		@Override
		public int compareTo(Delayed other) {
			return Long.compare(0, other.getDelay(TimeUnit.NANOSECONDS));
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			return false;
		}

		@Override
		public boolean isCancelled() {
			return false;
		}

		@Override
		public boolean isDone() {
			return true;
		}

		@Override
		public @Nullable Object get() {
			return null;
		}

		@Override
		public @Nullable Object get(long timeout, TimeUnit unit) {
			return null;
		}

	}

}
