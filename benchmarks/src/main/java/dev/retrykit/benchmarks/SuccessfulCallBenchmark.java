package dev.retrykit.benchmarks;

import java.util.concurrent.Callable;
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
 * The common case: the first attempt succeeds. What is measured is the price of going through a
 * retry library at all, next to a direct call and a hand-written try/catch loop.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class SuccessfulCallBenchmark {

	@Benchmark
	public void baselineDirectCall(Call call, Blackhole bh) {
		bh.consume(call.call());
	}

	@Benchmark
	public void baselineHandWrittenLoop(Call call, Blackhole bh) throws Exception {
		bh.consume(HandWrittenRetryLoop.call(call.callable, PeerRetries.MAX_ATTEMPTS));
	}

	/** Spring Retry's classic configuration, its fastest: {@code new RetryTemplate()}, {@code SimpleRetryPolicy(3)}, {@code NoBackOffPolicy}. */
	@Benchmark
	public void springRetryClassic(PeerRetries peers, Call call, Blackhole bh) {
		bh.consume(peers.springRetryClassic.execute(call.springRetryCallback));
	}

	/** Spring Retry's {@code RetryTemplate.builder()}: its policy wrapped in a {@code CompositeRetryPolicy}. */
	@Benchmark
	public void springRetryBuilder(PeerRetries peers, Call call, Blackhole bh) {
		bh.consume(peers.springRetryBuilder.execute(call.springRetryCallback));
	}

	@Benchmark
	public void springFramework(PeerRetries peers, Call call, Blackhole bh) throws Exception {
		bh.consume(peers.springFramework.execute(call.springFrameworkRetryable));
	}

	@Benchmark
	public void resilience4j(PeerRetries peers, Call call, Blackhole bh) throws Exception {
		bh.consume(peers.resilience4j.executeCallable(call.callable));
	}

	@Benchmark
	public void failsafe(PeerRetries peers, Call call, Blackhole bh) {
		bh.consume(peers.failsafe.get(call.failsafeSupplier));
	}

	/**
	 * A call that always succeeds, and the callback each library takes for it, built once. Holds no
	 * per-call state, so all threads share it.
	 */
	@State(Scope.Benchmark)
	public static class Call {

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final Callable<String> callable = this::call;

		final org.springframework.retry.RetryCallback<String, RuntimeException> springRetryCallback = ctx -> call();

		final org.springframework.core.retry.Retryable<String> springFrameworkRetryable = this::call;

		final CheckedSupplier<String> failsafeSupplier = this::call;

		String call() {
			return this.payload;
		}

	}

}
