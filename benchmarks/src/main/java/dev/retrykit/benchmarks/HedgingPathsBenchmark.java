package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.hedging.HedgingConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The hedging paths beyond the happy one ({@link HedgingBenchmark}), each per call:
 * <ul>
 * <li>{@code adaptiveLater}: a call of an adaptive instance that goes async and succeeds, recording its
 * latency into the window (the delay worked out again every 64 calls);
 * <li>{@code timerPass}: {@value #CALLS} calls whose first copy is slower than the delay, in virtual time:
 * the timer's pass finds them due, hands each hedge's start over on its own, the hedges start and win,
 * the first copies are cancelled;
 * <li>{@code blockingHedged} beside {@code blockingPlain}: a blocking call whose first copy answers at
 * once, run as a task on the hedging executor while the caller waits, beside the same call not hedged.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
public class HedgingPathsBenchmark {

	static final int CALLS = 100;

	@Benchmark
	public String adaptiveLater(Instances instances) {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> call = instances.adaptive.executeAsync(() -> attempt);
		attempt.complete(instances.payload);
		return call.join();
	}

	@Benchmark
	@OperationsPerInvocation(CALLS)
	public int timerPass(Passes passes) {
		List<CompletableFuture<String>> calls = passes.calls;
		calls.clear();
		for (int i = 0; i < CALLS; i++) {
			calls.add(passes.template.executeAsync(passes::copy));
		}
		passes.time.advance(Duration.ofMillis(10));
		int won = 0;
		for (CompletableFuture<String> call : calls) {
			won += (call.getNow(null) != null) ? 1 : 0;
		}
		return won;
	}

	@Benchmark
	public String blockingHedged(Instances instances) throws Exception {
		return instances.blocking.execute(context -> instances.payload);
	}

	@Benchmark
	public String blockingPlain(Instances instances) throws Exception {
		return instances.plain.execute(context -> instances.payload);
	}

	/** The instances, shared by all threads. */
	@State(Scope.Benchmark)
	public static class Instances {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		TimingWheelScheduler wheel;

		ExecutorService copies;

		RetryTemplate adaptive;

		RetryTemplate blocking;

		RetryTemplate plain;

		@Setup(Level.Trial)
		public void start() {
			this.wheel = TimingWheelScheduler.builder().threadName("bench-timer").build();
			this.copies = Executors.newCachedThreadPool();
			RetryConfig config = RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.none()).build();
			this.adaptive = RetryTemplate.builder().name("adaptive").config(config).scheduler(this.wheel)
				.hedging(HedgingConfig.builder().adaptive().maxDelay(Duration.ofMillis(50)).build()).build();
			this.blocking = RetryTemplate.builder().name("blocking").config(config).scheduler(this.wheel)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(this.copies).build()).build();
			this.plain = RetryTemplate.builder().name("plain").config(config).scheduler(this.wheel).build();
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.wheel.stop();
			this.copies.shutdownNow();
		}

	}

	/** An instance in virtual time whose first copies never answer and whose hedges answer at once. */
	@State(Scope.Thread)
	public static class Passes {

		final VirtualTime time = new VirtualTime();

		final List<CompletableFuture<String>> calls = new ArrayList<>(CALLS);

		RetryTemplate template;

		@Setup(Level.Trial)
		public void start() {
			this.template = RetryTemplate.builder().name("passes").virtualTime(this.time).maxAttempts(2)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).maxExtraLoad(1).build()).build();
		}

		/** A first copy never answers; a hedge answers at once. */
		CompletableFuture<String> copy() {
			RetryContext context = RetryTemplate.currentContext();
			boolean hedge = context != null && Boolean.TRUE.equals(context.getAttribute("retry.hedged"));
			return hedge ? CompletableFuture.completedFuture("hedge") : new CompletableFuture<>();
		}

	}

}
