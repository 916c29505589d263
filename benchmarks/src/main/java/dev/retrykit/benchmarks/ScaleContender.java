package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import dev.retrykit.RetryTemplate;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.backoff.BackoffPolicy;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import org.jspecify.annotations.Nullable;

/**
 * The contenders of {@link PendingRetriesScale}: each starts calls whose first attempt fails at once
 * and whose retry then waits for a delay, and cancels them through the future it returned.
 */
enum ScaleContender {

	/** {@code executeAsync} with a fixed backoff on a {@link TimingWheelScheduler} of its defaults. */
	RETRYKIT("retrykit executeAsync, timing wheel") {
		@Override
		Harness start(Duration delay) {
			TimingWheelScheduler wheel = TimingWheelScheduler.builder().threadName("scale-timer").build();
			RetryTemplate template = RetryTemplate.builder()
				.name("scale")
				.maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.backoff(BackoffPolicy.fixed(delay))
				.scheduler(wheel)
				.build();
			return new Harness(true) {
				@Override
				Future<?> call(Probe probe) {
					return template.executeAsync(probe);
				}

				@Override
				long pending() {
					return wheel.pendingCount();
				}

				@Override
				public void close() {
					wheel.stop();
				}
			};
		}
	},

	/** The floor: a bare one-thread executor scheduling a task, no retry library, no first attempt. */
	SCHEDULED_EXECUTOR("ScheduledThreadPoolExecutor(1), bare task") {
		@Override
		Harness start(Duration delay) {
			return new ExecutorHarness(false, false) {
				@Override
				Future<?> call(Probe probe) {
					return this.executor.schedule((Runnable) probe, delay.toNanos(), TimeUnit.NANOSECONDS);
				}
			};
		}
	},

	/** The same with {@code setRemoveOnCancelPolicy(true)}: a cancelled task leaves the queue at once. */
	SCHEDULED_EXECUTOR_REMOVE_ON_CANCEL("ScheduledThreadPoolExecutor(1), bare task, removeOnCancel") {
		@Override
		Harness start(Duration delay) {
			return new ExecutorHarness(false, true) {
				@Override
				Future<?> call(Probe probe) {
					return this.executor.schedule((Runnable) probe, delay.toNanos(), TimeUnit.NANOSECONDS);
				}
			};
		}
	},

	/**
	 * The floor of any retry API that returns a {@link CompletableFuture}: a future over a bare executor
	 * task, which makes no attempt, and whose {@code cancel} completes it with a {@link CancellationException}
	 * without a stack trace (as retrykit's does) and cancels the task. What it costs beyond the bare task
	 * is what returning a {@code CompletableFuture} costs.
	 */
	COMPLETABLE_FUTURE_OVER_EXECUTOR("CompletableFuture over a bare STPE(1) task") {
		@Override
		Harness start(Duration delay) {
			return new ExecutorHarness(false, false) {
				@Override
				Future<?> call(Probe probe) {
					TaskFuture future = new TaskFuture(probe);
					future.task = this.executor.schedule(future, delay.toNanos(), TimeUnit.NANOSECONDS);
					return future;
				}
			};
		}
	},

	/** {@code Retry.executeCompletionStage} on a one-thread scheduled executor. */
	RESILIENCE4J("Resilience4j executeCompletionStage, STPE(1)") {
		@Override
		Harness start(Duration delay) {
			Retry retry = Retry.of("scale", RetryConfig.custom()
				.maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.waitDuration(delay)
				.retryExceptions(Exception.class)
				.build());
			return new ExecutorHarness(true, false) {
				@Override
				Future<?> call(Probe probe) {
					return retry.executeCompletionStage(this.executor, probe).toCompletableFuture();
				}
			};
		}
	},

	/** {@code getStageAsync} with the one-thread scheduled executor as Failsafe's scheduler. */
	FAILSAFE("Failsafe getStageAsync, STPE(1)") {
		@Override
		Harness start(Duration delay) {
			RetryPolicy<Object> policy = RetryPolicy.builder()
				.withMaxAttempts(PeerRetries.MAX_ATTEMPTS)
				.withDelay(delay)
				.handle(Exception.class)
				.build();
			return new ExecutorHarness(true, false) {
				private final FailsafeExecutor<Object> failsafe = Failsafe.with(policy).with(this.executor);

				@Override
				Future<?> call(Probe probe) {
					return this.failsafe.getStageAsync(probe::get);
				}
			};
		}
	};

	final String label;

	ScaleContender(String label) {
		this.label = label;
	}

	/**
	 * @param names contender constant names separated by commas, or empty for all
	 * @return the contenders named, in declaration order
	 */
	static List<ScaleContender> named(String names) {
		if (names.isBlank()) {
			return List.of(values());
		}
		java.util.Set<String> wanted = new java.util.HashSet<>(List.of(names.split(",")));
		List<ScaleContender> chosen = new java.util.ArrayList<>();
		for (ScaleContender contender : values()) {
			if (wanted.remove(contender.name())) {
				chosen.add(contender);
			}
		}
		if (!wanted.isEmpty()) {
			throw new IllegalArgumentException("Unknown contenders " + wanted + ": must be among "
					+ java.util.Arrays.toString(values()));
		}
		return chosen;
	}

	/**
	 * @param delay the wait before each retry
	 * @return a new, running contender
	 */
	abstract Harness start(Duration delay);

	/** One contender's running instance. Not thread-safe: one thread calls and cancels. */
	abstract static class Harness implements AutoCloseable {

		/** Whether a call makes a first attempt (on any thread) before its retry is pending. */
		final boolean makesFirstAttempt;

		Harness(boolean makesFirstAttempt) {
			this.makesFirstAttempt = makesFirstAttempt;
		}

		/**
		 * Starts one call.
		 * @param probe the attempt: a library calls {@link Probe#get()}, a bare executor runs it
		 * @return the future that cancels the call
		 */
		abstract Future<?> call(Probe probe);

		/** @return tasks waiting in the timer (for an executor: its queue, cancelled tasks included) */
		abstract long pending();

		@Override
		public abstract void close();

	}

	/** A harness on a one-thread {@link ScheduledThreadPoolExecutor}. */
	abstract static class ExecutorHarness extends Harness {

		final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);

		ExecutorHarness(boolean makesFirstAttempt, boolean removeOnCancel) {
			super(makesFirstAttempt);
			this.executor.setRemoveOnCancelPolicy(removeOnCancel);
		}

		@Override
		long pending() {
			return this.executor.getQueue().size();
		}

		@Override
		public void close() {
			this.executor.shutdownNow();
		}

	}

	/** {@link #COMPLETABLE_FUTURE_OVER_EXECUTOR}'s future: the task it waits on is its "retry". */
	static final class TaskFuture extends CompletableFuture<String> implements Runnable {

		private final Runnable retry;

		/** Set by the one thread that schedules and cancels, before it returns the future. */
		@Nullable ScheduledFuture<?> task;

		TaskFuture(Runnable retry) {
			this.retry = retry;
		}

		@Override
		public void run() {
			if (!isDone()) {
				this.retry.run();
			}
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			if (!completeExceptionally(new Cancelled())) {
				return isCancelled();
			}
			Objects.requireNonNull(this.task).cancel(false);
			return true;
		}

	}

	/** A cancellation without a stack trace, as cheap as a cancellation can be. */
	static final class Cancelled extends CancellationException {

		private static final long serialVersionUID = 1L;

		@Override
		public synchronized Throwable fillInStackTrace() {
			return this;
		}

	}

	/**
	 * What a call runs: every attempt returns {@code failedFuture(SimulatedFailure.INSTANCE)} (so a
	 * call never succeeds), and a bare executor's task counts as a retry. Thread-safe.
	 */
	abstract static class Probe implements Supplier<CompletionStage<String>>, Runnable {

		@Override
		public final CompletionStage<String> get() {
			onAttempt();
			return CompletableFuture.failedFuture(SimulatedFailure.INSTANCE);
		}

		@Override
		public final void run() {
			onRetry();
		}

		/** An attempt started: the first, or a retry. */
		abstract void onAttempt();

		/** A bare executor ran the task: its "retry". */
		abstract void onRetry();

	}

}
