package dev.retrykit.cluster;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.spi.TimeSource;

/**
 * Runs operations on the engine on two daemon threads of its own and bounds how long a caller waits
 * for them: past the timeout, or when the engine throws, the caller takes its local fallback, a
 * fallback is counted and the engine is marked unreachable. While unreachable, operations fall back at
 * once without waiting, until {@link #probe} reaches the engine again: only a probe marks it reachable,
 * so an operation in flight that answers late does not (see {@link EngineReach}, which also logs the
 * spell once). Only the engine's own failures
 * count: a caller interrupted while it waits keeps waiting (at most the timeout) and gets its interrupt
 * back, flag set, with the engine's answer.
 *
 * <p>An operation the caller gave up on is not stopped: an engine's client may not heed the interrupt
 * (Hazelcast's invocations wait on) and the engine may apply what was sent anyway. An operation of several
 * round trips (a compare-and-set loop) is therefore handed its {@link Caller}, and starts no write on
 * what it read once its caller has given up (see {@link Caller}). Thread-safe.
 */
final class EngineCalls implements AutoCloseable {

	private final long timeoutNanos;

	private final ThreadPoolExecutor executor;

	private final AtomicLong fallbacks = new AtomicLong();

	private final EngineReach reach;

	/**
	 * @param timeoutNanos the longest a caller waits for an operation
	 * @param timeSource the clock of the engine's reach
	 * @param settleNanos how long the engine must answer everything before a spell of unreachability ends
	 */
	EngineCalls(long timeoutNanos, TimeSource timeSource, long settleNanos) {
		this.timeoutNanos = timeoutNanos;
		this.reach = new EngineReach(timeSource, settleNanos);
		AtomicInteger threads = new AtomicInteger();
		// Bounded: an engine that hangs fills the queue, and further operations fall back at once.
		this.executor = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024), task -> {
			Thread thread = new Thread(task, "retrykit-cluster-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.executor.allowCoreThreadTimeOut(true);
	}

	/**
	 * Runs an operation and waits for it at most the timeout; while the engine is unreachable, falls back at once.
	 * @return the operation's result, or the fallback's
	 */
	<T> T call(Supplier<T> operation, Supplier<T> fallback) {
		return call(caller -> operation.get(), fallback);
	}

	/**
	 * Like {@link #call(Supplier, Supplier)}, for an operation that asks, between its round trips, whether
	 * its caller still waits for it.
	 * @return the operation's result, or the fallback's
	 */
	<T> T call(Function<Caller, T> operation, Supplier<T> fallback) {
		if (!this.reach.isReachable()) {
			fellBack();
			return fallback.get();
		}
		return await(operation, fallback, false);
	}

	private void fellBack() {
		this.fallbacks.incrementAndGet();
		this.reach.fellBack();
	}

	/** Like {@link #call}, but tries the engine even while it is marked unreachable, so the replica rejoins. */
	<T> T probe(Supplier<T> operation, Supplier<T> fallback) {
		return await(caller -> operation.get(), fallback, true);
	}

	/**
	 * Starts an operation without waiting for it; a failure counts as a fallback.
	 * @return whether the operation was started (not while the engine is unreachable)
	 */
	boolean send(Runnable operation) {
		if (!this.reach.isReachable()) {
			fellBack();
			return false;
		}
		try {
			this.executor.execute(() -> {
				try {
					operation.run();
					this.reach.answered();
				}
				catch (RuntimeException ex) {
					failed(ex);
				}
			});
			return true;
		}
		catch (RejectedExecutionException ex) {
			failed(ex);
			return false;
		}
	}

	private <T> T await(Function<Caller, T> operation, Supplier<T> fallback, boolean probe) {
		Caller caller = new Caller();
		Future<T> future;
		try {
			future = this.executor.submit(() -> operation.apply(caller));
		}
		catch (RejectedExecutionException ex) {
			failed(ex);
			return fallback.get();
		}
		long deadline = System.nanoTime() + this.timeoutNanos;
		boolean interrupted = false;
		try {
			for (;;) {
				try {
					T result = future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
					if (probe) {
						this.reach.probed();
					}
					else {
						this.reach.answered();
					}
					return result;
				}
				catch (InterruptedException ex) {
					// The caller's interrupt, not the engine's failure: wait out the timeout, then hand it back.
					interrupted = true;
				}
				catch (ExecutionException ex) {
					Throwable cause = ex.getCause();
					failed((cause != null) ? cause : ex);
					return fallback.get();
				}
				catch (TimeoutException ex) {
					// Before the fallback: whatever the caller records of the operation now must hold if it goes on.
					caller.gaveUp = true;
					future.cancel(true);
					failed(ex);
					return fallback.get();
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void failed(Throwable cause) {
		this.fallbacks.incrementAndGet();
		this.reach.failed(cause);
	}

	boolean isReachable() {
		return this.reach.isReachable();
	}

	EngineReach reach() {
		return this.reach;
	}

	long fallbacks() {
		return this.fallbacks.get();
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

	/**
	 * Whether the caller of an operation still waits for it. Once the caller has given up (the timeout
	 * passed), it has taken its fallback and recorded the operation as unanswered: a write-back acting for
	 * it later tells by the write's id in the stored entry whether it was applied, and counts its change
	 * itself when the id is not there. A write still running must then not apply its change again on a
	 * newer entry, where that write-back may have counted it already; so an operation of several round
	 * trips asks {@link #hasGivenUp()} after each read and stops when it says so. The compare-and-set in
	 * flight at that moment may still land, but only on the bytes it read, so never on top of a later write.
	 * Thread-safe.
	 */
	static final class Caller {

		private volatile boolean gaveUp;

		/** {@return whether the caller stopped waiting (set before it takes its fallback)} */
		boolean hasGivenUp() {
			return this.gaveUp;
		}

	}

}
