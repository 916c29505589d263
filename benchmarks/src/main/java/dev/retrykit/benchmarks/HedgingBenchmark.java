package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.hedging.HedgingConfig;
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
 * The price of hedging on the happy path: a successful first attempt on a hedging instance (3 copies,
 * fixed 10ms delay, on a running timing wheel) beside the same instance without hedging, and beside a
 * hand-written hedge on a {@link ScheduledThreadPoolExecutor} (one timer armed and cancelled per call).
 *
 * <p>Two shapes of attempt: {@code …AtOnce} returns an already complete future (both instances hand
 * it back as is); {@code …Later} returns a future that the benchmark completes after
 * {@code executeAsync} returned, so that the call goes async: the hedging instance then watches it for
 * its timer's pass.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
public class HedgingBenchmark {

	@Benchmark
	public String plainAtOnce(Instances instances) {
		return instances.plain.executeAsync(instances.atOnce).join();
	}

	@Benchmark
	public String hedgingAtOnce(Instances instances) {
		return instances.hedging.executeAsync(instances.atOnce).join();
	}

	@Benchmark
	public String plainLater(Instances instances) {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> call = instances.plain.executeAsync(() -> attempt);
		attempt.complete(instances.payload);
		return call.join();
	}

	@Benchmark
	public String hedgingLater(Instances instances) {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> call = instances.hedging.executeAsync(() -> attempt);
		attempt.complete(instances.payload);
		return call.join();
	}

	/** A hedge by hand: the attempt, a timer for the second copy, cancelled when the attempt answers. */
	@Benchmark
	public String handWrittenHedgeLater(Instances instances) {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> result = new CompletableFuture<>();
		ScheduledFuture<?> hedge = instances.executor.schedule(() -> {
			if (!result.isDone()) {
				instances.atOnce.get().whenComplete((value, failure) -> result.complete(value));
			}
		}, 10, TimeUnit.MILLISECONDS);
		attempt.whenComplete((value, failure) -> {
			if (failure == null && result.complete(value)) {
				hedge.cancel(false);
			}
		});
		attempt.complete(instances.payload);
		return result.join();
	}

	/** The instances, shared by all threads. */
	@State(Scope.Benchmark)
	public static class Instances {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final Supplier<CompletableFuture<String>> atOnce = () -> CompletableFuture.completedFuture(this.payload);

		TimingWheelScheduler wheel;

		ScheduledThreadPoolExecutor executor;

		RetryTemplate plain;

		RetryTemplate hedging;

		@Setup(Level.Trial)
		public void start() {
			this.wheel = TimingWheelScheduler.builder().threadName("bench-timer").build();
			RetryConfig config = RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.none()).build();
			this.plain = RetryTemplate.builder().name("plain").config(config).scheduler(this.wheel).build();
			this.hedging = RetryTemplate.builder().name("hedging").config(config).scheduler(this.wheel)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build();
			this.executor = new ScheduledThreadPoolExecutor(1);
			this.executor.setRemoveOnCancelPolicy(true);
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.wheel.stop();
			this.executor.shutdownNow();
			// A benchmark thread held up past the delay (a GC pause, a busy machine) between executeAsync and
			// the attempt's answer is hedged, as it should be: told, for the record, not failed.
			System.out.println("Hedges started: " + this.hedging.getMetrics().getHedgesStarted() + " of "
					+ this.hedging.getMetrics().getAttempts() + " attempts");
		}

	}

}
