package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.retrykit.Deadline;
import dev.retrykit.RetryFunction;
import dev.retrykit.RetryTemplate;
import org.jspecify.annotations.Nullable;
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
 * What a {@link Deadline} costs a successful call of a plain instance (no breaker, budget, listener or
 * max-duration): {@code noDeadline} is the short path every application that never enters a deadline
 * keeps (a constant null for the deadline, as the JIT compiles it until a deadline is first entered); {@code underDeadline} runs the
 * same call with a deadline current on the thread (the guarded path: the deadline is converted to the
 * engine's clock and kept on the context); {@code scopePerCall} also enters and closes the scope around
 * each call, as a request filter does once per request. Each row runs in its own fork, so a deadline
 * entered by one never reaches another's {@code noDeadline}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class DeadlineBenchmark {

	@Benchmark
	public String noDeadline(Call call) {
		return call.template.execute(call.attempt, call);
	}

	@Benchmark
	public String underDeadline(Call call, UnderDeadline deadline) {
		return call.template.execute(call.attempt, call);
	}

	@Benchmark
	public String scopePerCall(Call call) {
		try (Deadline.Scope scope = call.deadline.enter()) {
			return call.template.execute(call.attempt, call);
		}
	}

	/** A plain instance and a call that always succeeds, built once; shared by all threads. */
	@State(Scope.Benchmark)
	public static class Call {

		final RetryTemplate template = RetryTemplate.builder().name("deadline-benchmark").maxAttempts(3).build();

		/** Not final, so the JIT cannot fold the call into a constant. */
		String payload = "ok";

		final RetryFunction<Call, String, RuntimeException> attempt = (call, context) -> call.payload;

		/** Far enough away never to pass during a run. */
		final Deadline deadline = Deadline.after(Duration.ofHours(1));

	}

	/** A deadline current on the benchmark thread for the whole trial (entered and closed on it). */
	@State(Scope.Thread)
	public static class UnderDeadline {

		private Deadline.@Nullable Scope scope;

		@Setup(Level.Trial)
		public void enter(Call call) {
			this.scope = call.deadline.enter();
		}

		@TearDown(Level.Trial)
		public void close() {
			if (this.scope != null) {
				this.scope.close();
			}
		}

	}

}
