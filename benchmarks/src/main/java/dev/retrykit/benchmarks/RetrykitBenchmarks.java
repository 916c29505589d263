package dev.retrykit.benchmarks;

import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
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
 * retrykit in the scenarios of {@link SuccessfulCallBenchmark} and {@link RetryAfterFailuresBenchmark},
 * configured as the peers are there: 3 attempts, no delay, the same calls, callbacks built once. (Its
 * circuit breaker and async benchmarks sit next to the peers', in {@link CircuitBreakerBenchmark} and
 * {@link AsyncBenchmark}.)
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class RetrykitBenchmarks {

	/** Next to {@link SuccessfulCallBenchmark}. */
	@Benchmark
	public void successfulCall(Retrykit retrykit, Blackhole bh) {
		bh.consume(retrykit.template.execute(retrykit.successfulCallback));
	}

	/**
	 * The call of {@link #successfulCall} made from a method the JIT may not inline into the benchmark's
	 * loop, so that nothing of the call is hoisted out of the loop or merged across calls: each call
	 * pays every load and store, as a call from a proxy or a service method does. Next to
	 * {@link #baselineDirectCallNotInlined}; the difference is what retrykit costs such a call.
	 */
	@Benchmark
	public void successfulCallNotInlined(Retrykit retrykit, Blackhole bh) {
		bh.consume(retried(retrykit));
	}

	/** The floor of {@link #successfulCallNotInlined}: the same method, calling the operation directly. */
	@Benchmark
	public void baselineDirectCallNotInlined(Retrykit retrykit, Blackhole bh) {
		bh.consume(direct(retrykit));
	}

	@CompilerControl(CompilerControl.Mode.DONT_INLINE)
	private static String retried(Retrykit retrykit) {
		return retrykit.template.execute(retrykit.successfulCallback);
	}

	@CompilerControl(CompilerControl.Mode.DONT_INLINE)
	private static String direct(Retrykit retrykit) {
		return retrykit.call();
	}

	/** Next to {@link RetryAfterFailuresBenchmark}. */
	@Benchmark
	public void retryAfterFailures(Retrykit retrykit, FailTwice call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(retrykit.template.execute(call.callback));
	}

	/** retrykit's template, shared by all threads, with a call that always succeeds. */
	@State(Scope.Benchmark)
	public static class Retrykit {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final RetryCallback<String, RuntimeException> successfulCallback = ctx -> call();

		final RetryTemplate template = newTemplate();

		String call() {
			return this.payload;
		}

		/**
		 * Fails the trial unless the template retries a call that fails twice to success on attempt 3
		 * (without calling its sleeper, which would throw).
		 */
		@Setup
		public void checkRetrykitRetries() {
			SelfCheck.requireThreeAttempts("retrykit RetryTemplate", call -> this.template.execute(ctx -> call.call()));
		}

		private static RetryTemplate newTemplate() {
			return RetryTemplate.builder()
				.name("bench")
				.maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.backoff(BackoffPolicy.none())
				.sleeper(Retrykit::neverSleep)
				.build();
		}

		/** The template's sleeper: a zero delay must never reach it, so a call to it fails the benchmark. */
		private static void neverSleep(long nanos) {
			throw new IllegalStateException("retrykit called its sleeper for " + nanos + "ns with a zero-delay backoff");
		}

	}

	/** A per-thread call that fails, fails and succeeds; each invocation resets its counter first. */
	@State(Scope.Thread)
	public static class FailTwice {

		final FlakyCall flaky = new FlakyCall(SelfCheck.EXPECTED_ATTEMPTS - 1, "ok");

		final RetryCallback<String, RuntimeException> callback = ctx -> this.flaky.call();

	}

}
