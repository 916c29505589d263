package dev.retrykit.benchmarks;

import java.util.concurrent.TimeUnit;

import dev.failsafe.function.CheckedSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The retry path: the call fails twice with a preallocated, stack-trace-free exception and succeeds on
 * its third attempt, with no delay in between. What is measured is each library's handling of two
 * failures (classification, bookkeeping, listeners, its zero-length backoff) plus three calls.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class RetryAfterFailuresBenchmark {

	@Benchmark
	public void baselineHandWrittenLoop(FailTwice call, Blackhole bh) throws Exception {
		call.flaky.reset();
		bh.consume(HandWrittenRetryLoop.call(call.flaky, PeerRetries.MAX_ATTEMPTS));
	}

	/** Spring Retry's classic configuration, its fastest: {@code new RetryTemplate()}, {@code SimpleRetryPolicy(3)}, {@code NoBackOffPolicy}. */
	@Benchmark
	public void springRetryClassic(PeerRetries peers, FailTwice call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(peers.springRetryClassic.execute(call.springRetryCallback));
	}

	/** Spring Retry's {@code RetryTemplate.builder()}: its policy wrapped in a {@code CompositeRetryPolicy}. */
	@Benchmark
	public void springRetryBuilder(PeerRetries peers, FailTwice call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(peers.springRetryBuilder.execute(call.springRetryCallback));
	}

	@Benchmark
	public void springFramework(PeerRetries peers, FailTwice call, Blackhole bh) throws Exception {
		call.flaky.reset();
		bh.consume(peers.springFramework.execute(call.springFrameworkRetryable));
	}

	@Benchmark
	public void resilience4j(PeerRetries peers, FailTwice call, Blackhole bh) throws Exception {
		call.flaky.reset();
		bh.consume(peers.resilience4j.executeCallable(call.flaky));
	}

	@Benchmark
	public void failsafe(PeerRetries peers, FailTwice call, Blackhole bh) {
		call.flaky.reset();
		bh.consume(peers.failsafe.get(call.failsafeSupplier));
	}

	/**
	 * A per-thread call that fails, fails and succeeds, and the callback each library takes for it,
	 * built once. Each benchmark invocation resets the attempt counter first, so every invocation sees
	 * the same fail-fail-succeed sequence; {@link PeerRetries}'s setup has proved each library makes
	 * exactly three attempts of it.
	 */
	@State(Scope.Thread)
	public static class FailTwice {

		final FlakyCall flaky = new FlakyCall(SelfCheck.EXPECTED_ATTEMPTS - 1, "ok");

		final org.springframework.retry.RetryCallback<String, RuntimeException> springRetryCallback = ctx -> this.flaky
			.call();

		final org.springframework.core.retry.Retryable<String> springFrameworkRetryable = this.flaky::call;

		final CheckedSupplier<String> failsafeSupplier = this.flaky::call;

	}

}
