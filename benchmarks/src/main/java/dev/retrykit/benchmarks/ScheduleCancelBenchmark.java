package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryTemplate;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.spi.ScheduledTask;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The timer under an async retry: schedule a task one hour ahead and cancel it at once, as a call that
 * is cancelled while it waits for its retry does. retrykit's {@link TimingWheelScheduler} (thread mode,
 * its defaults: 10 ms tick, 512 buckets) next to a one-thread {@link ScheduledThreadPoolExecutor}.
 *
 * <p>The executor removes a task from its queue when it is cancelled
 * ({@code setRemoveOnCancelPolicy(true)}); by default it keeps cancelled tasks queued until their
 * delay ends, and an hour of them would fill the heap within seconds. The wheel drops a cancelled task
 * at once and unlinks its node on the next tick. Memory per pending task is measured by
 * {@link PendingRetriesScale}, not here.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ScheduleCancelBenchmark {

	@Benchmark
	public boolean timingWheel(Timers timers) {
		ScheduledTask task = timers.wheel.schedule(timers.task, 1, TimeUnit.HOURS);
		return task.cancel();
	}

	/**
	 * A whole pending async retry: {@code executeAsync} whose first attempt fails at once, so its retry
	 * waits an hour on the wheel, then the call cancelled, as {@link PendingRetriesScale} does a million
	 * times over; here in a steady state, so the heap the calls use is warm.
	 */
	@Benchmark
	public boolean retrykitPendingRetry(Timers timers) {
		return timers.template.executeAsync(timers.probe).cancel(false);
	}

	@Benchmark
	public boolean scheduledThreadPoolExecutor(Timers timers) {
		ScheduledFuture<?> task = timers.executor.schedule(timers.task, 1, TimeUnit.HOURS);
		return task.cancel(false);
	}

	/** The two timers, shared by all threads, and a task that must never run. */
	@State(Scope.Benchmark)
	public static class Timers {

		final Runnable task = () -> {
			throw new IllegalStateException("A task cancelled right after it was scheduled ran");
		};

		TimingWheelScheduler wheel;

		ScheduledThreadPoolExecutor executor;

		final PendingRetriesScale.CountingProbe probe = new PendingRetriesScale.CountingProbe();

		RetryTemplate template;

		@Setup(Level.Trial)
		public void start() {
			this.wheel = TimingWheelScheduler.builder().threadName("bench-timer").build();
			this.template = RetryTemplate.builder()
				.name("pending")
				.maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.backoff(BackoffPolicy.fixed(Duration.ofHours(1)))
				.scheduler(this.wheel)
				.build();
			this.executor = new ScheduledThreadPoolExecutor(1);
			this.executor.setRemoveOnCancelPolicy(true);
		}

		/** Fails the trial if a task was left pending: every cancel must have succeeded. */
		@TearDown(Level.Trial)
		public void stop() {
			int leftInWheel = this.wheel.stop().size();
			int leftInExecutor = this.executor.shutdownNow().size();
			if (leftInWheel != 0 || leftInExecutor != 0) {
				throw new IllegalStateException("Tasks left pending after cancel: wheel " + leftInWheel
						+ ", executor " + leftInExecutor);
			}
		}

	}

}
