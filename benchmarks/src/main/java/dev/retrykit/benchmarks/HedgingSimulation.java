package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.hedging.HedgingConfig;
import org.jspecify.annotations.Nullable;

/**
 * "The Tail at Scale"'s table, reproduced with retrykit's real engine in virtual time (issue 29): each call
 * to the downstream independently takes a log-normal time (median 2 ms, σ 0.5) or, with probability 1 %, a
 * straggler time uniform in 200–2,000 ms; a request fans out to 100 calls and waits for all of them;
 * 20,000 requests, one after another. Each call is an {@code executeAsync} of one hedging instance with
 * the default retry budget (10 tokens, 0.1 per success). Prints p50, p99 and p99.9 of the request latency
 * and the extra calls sent, for no hedging, a fixed delay and the adaptive delay at the 95th and 98th
 * percentiles, with 2 and 3 copies; then a full slowdown (every call 50× slower, suddenly, after 10,000
 * requests) under the adaptive delay. Deterministic (seeded).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.retrykit.benchmarks.HedgingSimulation}
 */
public final class HedgingSimulation {

	static final int FAN_OUT = 100;

	static final int REQUESTS = 20_000;

	private HedgingSimulation() {
	}

	/** A call's latency in nanoseconds, times {@code slowdown}. */
	static long latency(SplittableRandom random, int slowdown) {
		double millis = (random.nextDouble() < 0.01) ? 200 + random.nextDouble() * 1800
				: 2 * Math.exp(0.5 * gaussian(random));
		return (long) (millis * 1_000_000) * slowdown;
	}

	private static double gaussian(SplittableRandom random) {
		// Box-Muller: SplittableRandom has no nextGaussian on Java 17.
		return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
	}

	/** What one run measured. */
	record Result(long[] requestNanos, long calls, long copies, long slowCalls, long slowCopies) {

		double percentileMillis(double p) {
			long[] sorted = this.requestNanos.clone();
			Arrays.sort(sorted);
			return sorted[(int) Math.ceil(p * sorted.length) - 1] / 1e6;
		}

		double extraPercent() {
			return 100.0 * (this.copies - this.calls) / this.calls;
		}

		double slowExtraPercent() {
			return (this.slowCalls == 0) ? 0 : 100.0 * (this.slowCopies - this.slowCalls) / this.slowCalls;
		}

	}

	/**
	 * @param copies max-attempts
	 * @param hedging the policy, or {@code null} for none
	 * @param slowFrom the first request whose calls are 50× slower, or {@link Integer#MAX_VALUE}
	 */
	static Result run(int copies, @Nullable HedgingConfig hedging, int slowFrom, @Nullable RetryBudgetConfig budget) {
		VirtualTime time = new VirtualTime();
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(time)
			.config(RetryConfig.builder().maxAttempts(copies).hedging(hedging)
				.budget(budget, null).build())
			.build();
		SplittableRandom random = new SplittableRandom(29);
		long[] requestNanos = new long[REQUESTS];
		long[] sent = new long[1];
		long calls = 0;
		long slowCalls = 0;
		long slowCopies = 0;
		for (int request = 0; request < REQUESTS; request++) {
			int slowdown = (request >= slowFrom) ? 50 : 1;
			long start = time.nanoTime();
			long sentBefore = sent[0];
			long[] last = { start };
			int[] done = { 0 };
			for (int i = 0; i < FAN_OUT; i++) {
				CompletableFuture<String> call = template.executeAsync(() -> {
					sent[0]++;
					CompletableFuture<String> copy = new CompletableFuture<>();
					time.schedule(() -> copy.complete("ok"), latency(random, slowdown), TimeUnit.NANOSECONDS);
					return copy;
				});
				call.whenComplete((value, failure) -> {
					last[0] = Math.max(last[0], time.nanoTime());
					done[0]++;
				});
			}
			while (done[0] < FAN_OUT) {
				time.advance(Duration.ofMillis(1));
			}
			requestNanos[request] = last[0] - start;
			calls += FAN_OUT;
			if (slowdown > 1) {
				slowCalls += FAN_OUT;
				slowCopies += sent[0] - sentBefore;
			}
		}
		return new Result(requestNanos, calls, sent[0], slowCalls, slowCopies);
	}

	public static void main(String[] args) {
		table("the default retry budget (10 tokens, 0.1 per success)", RetryBudgetConfig.ofDefaults());
		table("a retry budget of 100 tokens (0.1 per success)", RetryBudgetConfig.builder().maxTokens(100).build());
		table("no retry budget", null);
		for (RetryBudgetConfig budget : new RetryBudgetConfig[] { RetryBudgetConfig.ofDefaults(), null }) {
			Result slow = run(3, HedgingConfig.builder().quantile(0.95).build(), REQUESTS / 2, budget);
			System.out.printf("%nFull slowdown (every call 50x slower from request %d), adaptive q0.95, 3 copies, %s: "
					+ "extra calls %.2f %% during the slowdown, %.2f %% overall%n", REQUESTS / 2,
					(budget != null) ? "default budget" : "no budget", slow.slowExtraPercent(), slow.extraPercent());
		}
	}

	private static void table(String title, @Nullable RetryBudgetConfig budget) {
		System.out.printf("%nWith %s:%n%n", title);
		System.out.println("| policy | copies | p50 (ms) | p99 (ms) | p99.9 (ms) | extra calls |");
		System.out.println("|---|---:|---:|---:|---:|---:|");
		row("no hedging", 1, null, budget);
		for (int copies = 2; copies <= 3; copies++) {
			row("fixed 10ms", copies, HedgingConfig.builder().delay(Duration.ofMillis(10)).build(), budget);
			row("adaptive q0.95", copies, HedgingConfig.builder().quantile(0.95).build(), budget);
			row("adaptive q0.98", copies, HedgingConfig.builder().quantile(0.98).build(), budget);
		}
	}

	private static void row(String name, int copies, @Nullable HedgingConfig hedging, @Nullable RetryBudgetConfig budget) {
		Result result = run(copies, hedging, Integer.MAX_VALUE, budget);
		System.out.printf("| %s | %d | %.1f | %.1f | %.1f | %.2f %% |%n", name, copies, result.percentileMillis(0.5),
				result.percentileMillis(0.99), result.percentileMillis(0.999), result.extraPercent());
	}

}
