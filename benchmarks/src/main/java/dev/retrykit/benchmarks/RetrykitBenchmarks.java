package dev.retrykit.benchmarks;

import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.spi.TimeSource;
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
 * retrykit in the three scenarios of {@link SuccessfulCallBenchmark}, {@link RetryAfterFailuresBenchmark}
 * and {@link CircuitBreakerBenchmark}, configured as the peers are there: 3 attempts, no delay, the
 * same calls, callbacks built once.
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

	/** Next to {@link RetryAfterFailuresBenchmark}. */
	@Benchmark
	public void retryAfterFailures(Retrykit retrykit, FailTwice call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(retrykit.template.execute(call.callback));
	}

	/** Next to {@link CircuitBreakerBenchmark}: the breaker used on its own, as a caller would. */
	@Benchmark
	public void circuitBreaker(Retrykit retrykit, Blackhole bh) {
		CircuitBreaker breaker = retrykit.breaker;
		if (!breaker.tryAcquirePermission()) {
			throw new IllegalStateException("The benchmark's circuit breaker opened on successful calls");
		}
		String result;
		try {
			result = retrykit.call();
			breaker.onSuccess();
		}
		catch (Throwable ex) {
			breaker.onFailure();
			throw ex;
		}
		bh.consume(result);
	}

	/** retrykit's template and breaker, shared by all threads, with a call that always succeeds. */
	@State(Scope.Benchmark)
	public static class Retrykit {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final RetryCallback<String, RuntimeException> successfulCallback = ctx -> call();

		final RetryTemplate template = newTemplate();

		/** Default config: trips when {@code consecutiveFailures > 5}. */
		final CircuitBreaker breaker = newBreaker();

		String call() {
			return this.payload;
		}

		/**
		 * Fails the trial unless the template retries a call that fails twice and a breaker with the
		 * benchmark's config opens after six consecutive failures. The breaker checked is a separate
		 * instance, so the measured one starts closed with nothing recorded.
		 */
		@Setup
		public void checkRetrykitRetriesAndBreakerGuards() {
			SelfCheck.requireThreeAttempts("retrykit RetryTemplate", call -> this.template.execute(ctx -> call.call()));
			CircuitBreaker tripped = newBreaker();
			for (int failure = 1; failure <= 6; failure++) {
				if (!tripped.tryAcquirePermission()) {
					throw new IllegalStateException("retrykit CircuitBreaker opened after " + (failure - 1)
							+ " consecutive failure(s); expected 6");
				}
				tripped.onFailure();
			}
			if (tripped.tryAcquirePermission()) {
				throw new IllegalStateException("retrykit CircuitBreaker let a call through after 6 consecutive failures");
			}
		}

		private static RetryTemplate newTemplate() {
			return RetryTemplate.builder()
				.name("bench")
				.maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.backoff(BackoffPolicy.none())
				.build();
		}

		private static CircuitBreaker newBreaker() {
			return CircuitBreaker.create("bench", CircuitBreakerConfig.builder().build(), TimeSource.SYSTEM);
		}

	}

	/** A per-thread call that fails, fails and succeeds; each invocation resets its counter first. */
	@State(Scope.Thread)
	public static class FailTwice {

		final FlakyCall flaky = new FlakyCall(SelfCheck.EXPECTED_ATTEMPTS - 1, "ok");

		final RetryCallback<String, RuntimeException> callback = ctx -> this.flaky.call();

	}

}
