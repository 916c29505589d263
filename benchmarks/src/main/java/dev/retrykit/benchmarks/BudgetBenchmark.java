package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a retry budget costs a call, each kind on its own (no template around it): a successful call through a
 * token bucket ({@code onSuccess}), through a ratio budget ({@code onCall}, which reads the clock and adds to its
 * slot, and {@code onSuccess}, which does nothing), and a failed call that a ratio budget lets retry
 * ({@code onCall}, {@code tryAcquireRetry}'s compare-and-set). The ratio budget runs on the system clock, so its
 * rows include {@code System.nanoTime()} and, ten times a second, the sum over its window's slots. Target: the
 * ratio budget's call within a few nanoseconds of the token bucket's, 0 B/op ({@code -prof gc}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class BudgetBenchmark {

	private final RetryBudget tokenBucket = RetryBudget.create("bucket", RetryBudgetConfig.ofDefaults());

	private final RetryBudget ratio = RetryBudget.create("ratio",
			RetryBudgetConfig.builder().ratio(0.2).minPerSecond(10).window(Duration.ofSeconds(10)).build());

	/** Enough calls per retry that the ratio keeps allowing them: the row measures a granted retry. */
	private final RetryBudget generous = RetryBudget.create("generous",
			RetryBudgetConfig.builder().ratio(10).minPerSecond(0).window(Duration.ofSeconds(1)).build());

	@Benchmark
	public void tokenBucketSuccessfulCall() {
		this.tokenBucket.onSuccess();
	}

	@Benchmark
	public void ratioSuccessfulCall() {
		this.ratio.onCall();
		this.ratio.onSuccess();
	}

	@Benchmark
	public boolean ratioRetriedCall() {
		this.generous.onCall();
		return this.generous.tryAcquireRetry();
	}

}
