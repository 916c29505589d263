package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.failsafe.CircuitBreakerOpenException;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.function.CheckedSupplier;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.spi.TimeSource;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
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
 * A successful call guarded by a closed circuit breaker, alone and inside a retry: the price of
 * asking for permission and recording the outcome on every call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class CircuitBreakerBenchmark {

	@Benchmark
	public void baselineDirectCall(Breakers breakers, Blackhole bh) {
		bh.consume(breakers.call());
	}

	/** retrykit's breaker on its own, as a caller uses it: {@code execute} asks, calls and records the outcome. */
	@Benchmark
	public void retrykitCircuitBreaker(Breakers breakers, Blackhole bh) throws Exception {
		bh.consume(breakers.retrykitBreaker.execute(breakers.callable));
	}

	/** A template whose configuration has a circuit breaker: every attempt passes it. */
	@Benchmark
	public void retrykitRetryWithCircuitBreaker(Breakers breakers, Blackhole bh) {
		bh.consume(breakers.retrykitRetryWithBreaker.execute(breakers.retrykitCallback));
	}

	@Benchmark
	public void resilience4jCircuitBreaker(Breakers breakers, Blackhole bh) throws Exception {
		bh.consume(breakers.resilience4jBreaker.executeCallable(breakers.callable));
	}

	@Benchmark
	public void resilience4jRetryWithCircuitBreaker(Breakers breakers, Blackhole bh) throws Exception {
		bh.consume(breakers.resilience4jRetry.executeCallable(breakers.resilience4jGuardedCallable));
	}

	@Benchmark
	public void failsafeCircuitBreaker(Breakers breakers, Blackhole bh) {
		bh.consume(breakers.failsafeBreakerExecutor.get(breakers.failsafeSupplier));
	}

	@Benchmark
	public void failsafeRetryWithCircuitBreaker(Breakers breakers, Blackhole bh) {
		bh.consume(breakers.failsafeRetryWithBreakerExecutor.get(breakers.failsafeSupplier));
	}

	/**
	 * The breakers and retries, shared by all threads as an application shares them, with a call
	 * that always succeeds.
	 *
	 * <p>Resilience4j's breaker keeps its defaults (count-based window of 100 calls, opens at a 50%
	 * failure rate). Failsafe's default opens on the first failure, which would turn a retry into
	 * rejections, so it opens after 6 consecutive failures instead, as retrykit's default trip
	 * {@code consecutiveFailures > 5} does. Only closed-circuit successes are measured, so the trip
	 * rule decides nothing here but the self-check.
	 */
	@State(Scope.Benchmark)
	public static class Breakers {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final Callable<String> callable = this::call;

		final CheckedSupplier<String> failsafeSupplier = this::call;

		final RetryCallback<String, RuntimeException> retrykitCallback = ctx -> call();

		final dev.retrykit.circuit.CircuitBreaker retrykitBreaker = dev.retrykit.circuit.CircuitBreaker.create("bench",
				CircuitBreakerConfig.builder().build(), TimeSource.SYSTEM);

		/** 3 attempts, no delay, and a breaker created from the configuration (default trip). */
		final RetryTemplate retrykitRetryWithBreaker = newRetrykitRetryWithBreaker();

		final CircuitBreaker resilience4jBreaker = CircuitBreaker.ofDefaults("bench");

		final Retry resilience4jRetry = PeerRetries.resilience4jRetry();

		final Callable<String> resilience4jGuardedCallable = CircuitBreaker.decorateCallable(this.resilience4jBreaker,
				this.callable);

		final dev.failsafe.CircuitBreaker<Object> failsafeCircuitBreaker = dev.failsafe.CircuitBreaker.builder()
			.withFailureThreshold(6)
			.withDelay(Duration.ofSeconds(60))
			.build();

		final FailsafeExecutor<Object> failsafeBreakerExecutor = Failsafe.with(this.failsafeCircuitBreaker);

		/** Retry outermost, so every attempt passes the breaker. */
		final FailsafeExecutor<Object> failsafeRetryWithBreakerExecutor = Failsafe.with(PeerRetries.failsafeRetryPolicy(),
				this.failsafeCircuitBreaker);

		String call() {
			return this.payload;
		}

		/**
		 * Fails the trial unless each breaker rejects calls while forced open and each retry + breaker
		 * pair retries a call that fails twice; leaves every breaker closed with no recorded calls.
		 */
		@Setup
		public void checkBreakersGuardAndRetriesRetry() {
			checkRetrykit();

			this.resilience4jBreaker.transitionToForcedOpenState();
			requireRejected("Resilience4j CircuitBreaker", CallNotPermittedException.class,
					() -> this.resilience4jBreaker.executeCallable(this.callable));
			this.resilience4jBreaker.reset();
			SelfCheck.requireThreeAttempts("Resilience4j Retry + CircuitBreaker",
					call -> this.resilience4jRetry.executeCallable(CircuitBreaker.decorateCallable(this.resilience4jBreaker, call)));
			this.resilience4jBreaker.reset();

			this.failsafeCircuitBreaker.open();
			requireRejected("Failsafe CircuitBreaker", CircuitBreakerOpenException.class,
					() -> this.failsafeBreakerExecutor.get(this.failsafeSupplier));
			this.failsafeCircuitBreaker.close();
			SelfCheck.requireThreeAttempts("Failsafe RetryPolicy + CircuitBreaker",
					call -> this.failsafeRetryWithBreakerExecutor.get(call::call));
			this.failsafeCircuitBreaker.close();
		}

		/**
		 * Checks on separate instances of the same configuration, so the measured ones start closed
		 * with nothing recorded: a breaker opens after six consecutive failures; a template with a
		 * breaker retries a call that fails twice and ends a call at once while its circuit is open.
		 */
		private static void checkRetrykit() {
			dev.retrykit.circuit.CircuitBreaker tripped = dev.retrykit.circuit.CircuitBreaker.create("check",
					CircuitBreakerConfig.builder().build(), TimeSource.SYSTEM);
			for (int failure = 1; failure <= 6; failure++) {
				try {
					tripped.execute(() -> {
						throw new IllegalStateException("failure");
					});
				}
				catch (IllegalStateException expected) {
					// counted by the breaker
				}
				catch (CircuitOpenException ex) {
					throw new IllegalStateException("retrykit CircuitBreaker opened after " + (failure - 1)
							+ " consecutive failure(s); expected 6");
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}
			requireRejected("retrykit CircuitBreaker after 6 consecutive failures", CircuitOpenException.class,
					() -> tripped.execute(() -> "not run"));
			RetryTemplate template = newRetrykitRetryWithBreaker();
			SelfCheck.requireThreeAttempts("retrykit RetryTemplate with a circuit breaker", call -> template.execute(ctx -> call.call()));
			java.util.Objects.requireNonNull(template.getCircuitBreaker(), "retrykit template has no circuit breaker").forceOpen();
			requireRejected("retrykit RetryTemplate with a circuit breaker", CircuitOpenException.class,
					() -> template.execute(ctx -> "not run"));
		}

		private static RetryTemplate newRetrykitRetryWithBreaker() {
			return RetryTemplate.builder()
				.name("bench-circuit")
				.config(RetryConfig.builder().circuitBreaker(CircuitBreakerConfig.builder().build()).build())
				.maxAttempts(PeerRetries.MAX_ATTEMPTS)
				.backoff(BackoffPolicy.none())
				.build();
		}

		private static void requireRejected(String library, Class<? extends Exception> rejection, Callable<?> call) {
			try {
				call.call();
			}
			catch (Exception ex) {
				if (rejection.isInstance(ex)) {
					return;
				}
				throw new IllegalStateException(library + " failed with " + ex + " instead of " + rejection.getName(), ex);
			}
			throw new IllegalStateException(library + " let a call through while forced open");
		}

	}

}
