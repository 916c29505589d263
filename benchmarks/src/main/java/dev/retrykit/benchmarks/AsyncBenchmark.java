package dev.retrykit.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.function.CheckedSupplier;
import dev.retrykit.RetryTemplate;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.backoff.BackoffPolicy;
import io.github.resilience4j.retry.Retry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Async retry of a {@link CompletionStage}: a first attempt that succeeds, and a call whose first two
 * attempts fail and whose third succeeds, with no delay. Every supplier returns
 * {@code CompletableFuture.completedFuture(...)} or {@code failedFuture(preallocated exception)}, so each
 * attempt allocates one future of the user's (the baselines show that floor).
 *
 * <p>retrykit's {@code executeAsync} runs zero-delay retries on the calling thread and never touches its
 * scheduler (the setup checks that). Resilience4j's {@code executeCompletionStage} hands every retry to
 * its scheduled executor and Failsafe's {@code getStageAsync} every attempt to its scheduler, even with
 * no delay; both get {@link InlineScheduler}, which runs the task at once on the calling thread, so no
 * benchmark measures a thread hop. Every benchmark hands the result of an already complete stage to the
 * blackhole ({@link SelfCheck#resultNow}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class AsyncBenchmark {

	@Benchmark
	public void baselineSuccessfulCall(AsyncLibraries libraries, Blackhole bh) {
		bh.consume(SelfCheck.resultNow("supplier", libraries.succeeding.get()));
	}

	@Benchmark
	public void retrykitSuccessfulCall(AsyncLibraries libraries, Blackhole bh) {
		bh.consume(SelfCheck.resultNow("retrykit", libraries.retrykit.executeAsync(libraries.succeeding)));
	}

	@Benchmark
	public void resilience4jSuccessfulCall(AsyncLibraries libraries, Blackhole bh) {
		bh.consume(SelfCheck.resultNow("Resilience4j",
				libraries.resilience4j.executeCompletionStage(InlineScheduler.INSTANCE, libraries.succeeding)));
	}

	@Benchmark
	public void failsafeSuccessfulCall(AsyncLibraries libraries, Blackhole bh) {
		bh.consume(SelfCheck.resultNow("Failsafe", libraries.failsafe.getStageAsync(libraries.failsafeSucceeding)));
	}

	/** The floor: the three attempts' futures, checked by hand, with no library in between. */
	@Benchmark
	public void baselineRetryAfterFailures(FailTwiceAsync call, Blackhole bh) {
		call.flaky.reset();
		CompletableFuture<String> future;
		do {
			future = call.flaky.get().toCompletableFuture();
		}
		while (future.isCompletedExceptionally());
		bh.consume(SelfCheck.resultNow("supplier", future));
	}

	@Benchmark
	public void retrykitRetryAfterFailures(AsyncLibraries libraries, FailTwiceAsync call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(SelfCheck.resultNow("retrykit", libraries.retrykit.executeAsync(call.flaky)));
	}

	@Benchmark
	public void resilience4jRetryAfterFailures(AsyncLibraries libraries, FailTwiceAsync call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(SelfCheck.resultNow("Resilience4j",
				libraries.resilience4j.executeCompletionStage(InlineScheduler.INSTANCE, call.flaky)));
	}

	@Benchmark
	public void failsafeRetryAfterFailures(AsyncLibraries libraries, FailTwiceAsync call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(SelfCheck.resultNow("Failsafe", libraries.failsafe.getStageAsync(call.failsafeSupplier)));
	}

	/**
	 * The three libraries' async retryers (3 attempts, no delay, every exception retried), shared by all
	 * threads, and a supplier that always succeeds.
	 */
	@State(Scope.Benchmark)
	public static class AsyncLibraries {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final Supplier<CompletionStage<String>> succeeding = this::succeed;

		final CheckedSupplier<CompletionStage<String>> failsafeSucceeding = this::succeed;

		/**
		 * Never used by a zero-delay call; manual, so it starts no thread. The setup checks that
		 * nothing was scheduled on it.
		 */
		final TimingWheelScheduler retrykitScheduler = TimingWheelScheduler.builder().manual().build();

		final RetryTemplate retrykit = RetryTemplate.builder()
			.name("bench-async")
			.maxAttempts(PeerRetries.MAX_ATTEMPTS)
			.backoff(BackoffPolicy.none())
			.scheduler(this.retrykitScheduler)
			.build();

		final Retry resilience4j = PeerRetries.resilience4jRetry();

		final FailsafeExecutor<Object> failsafe = Failsafe.with(PeerRetries.failsafeRetryPolicy())
			.with(InlineScheduler.FAILSAFE);

		CompletionStage<String> succeed() {
			return CompletableFuture.completedFuture(this.payload);
		}

		/**
		 * Fails the trial unless each library completes a successful call at once and retries a call
		 * that fails twice to success on attempt 3 before returning, and unless retrykit did so without
		 * its scheduler.
		 */
		@Setup
		public void checkEveryLibraryRetriesInline() {
			SelfCheck.resultNow("retrykit", this.retrykit.executeAsync(this.succeeding));
			SelfCheck.resultNow("Resilience4j", this.resilience4j.executeCompletionStage(InlineScheduler.INSTANCE, this.succeeding));
			SelfCheck.resultNow("Failsafe", this.failsafe.getStageAsync(this.failsafeSucceeding));
			SelfCheck.requireThreeAsyncAttempts("retrykit RetryTemplate.executeAsync", this.retrykit::executeAsync);
			SelfCheck.requireThreeAsyncAttempts("Resilience4j Retry.executeCompletionStage",
					call -> this.resilience4j.executeCompletionStage(InlineScheduler.INSTANCE, call));
			SelfCheck.requireThreeAsyncAttempts("Failsafe getStageAsync", call -> this.failsafe.getStageAsync(call::get));
			if (this.retrykitScheduler.pendingCount() != 0 || this.retrykitScheduler.firedCount() != 0) {
				throw new IllegalStateException("retrykit scheduled a zero-delay retry: " + this.retrykitScheduler);
			}
		}

	}

	/** A per-thread async call that fails, fails and succeeds; each invocation resets its counter first. */
	@State(Scope.Thread)
	public static class FailTwiceAsync {

		final FlakyAsyncCall flaky = new FlakyAsyncCall(SelfCheck.EXPECTED_ATTEMPTS - 1, "ok");

		final CheckedSupplier<CompletionStage<String>> failsafeSupplier = this.flaky::get;

	}

}
