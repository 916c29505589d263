package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import org.jspecify.annotations.Nullable;

/**
 * One fleet of {@link ClusterBudgetSimulation}: {@code replicas} replicas, each making {@code callsPerSecond}
 * calls a second (evenly spread, the replicas staggered) through a real {@link RetryTemplate} (3 attempts, no
 * backoff) against one downstream, in virtual time: the downstream fails 1 % of the attempts for 60 s, then
 * every attempt for 60 s, then half of them for 60 s. A cluster-scoped budget exchanges every 100 ms
 * ({@link RetryBudget#synchronise(LongUnaryOperator, int, java.util.random.RandomGenerator)}, staggered over
 * the interval, the first exchange at start-up as {@code RetryCluster.start()} makes it) with the cluster's
 * tokens kept and clamped as the engines keep them. Counts per phase and per second. Deterministic (seeded).
 */
final class BudgetFleet {

	/** How long each phase lasts. */
	static final int PHASE_SECONDS = 60;

	/** The share of attempts failing in each phase. */
	static final double[] FAILING = { 0.01, 1.0, 0.5 };

	static final int SYNC_MILLIS = 100;

	private static final Duration ONE_MILLI = Duration.ofMillis(1);

	private static final RuntimeException FAILURE = new IllegalStateException("downstream failed") {

		private static final long serialVersionUID = 1L;

		@Override
		public synchronized Throwable fillInStackTrace() {
			return this;
		}

	};

	/** Per second: calls, calls whose first attempt failed, of those the ones retried, retries. */
	final long[] calls = new long[FAILING.length * PHASE_SECONDS];

	final long[] failedCalls = new long[this.calls.length];

	final long[] retriedCalls = new long[this.calls.length];

	final long[] retries = new long[this.calls.length];

	private BudgetFleet() {
	}

	/**
	 * Runs a fleet through the three phases.
	 * @param budget the budget's settings, or {@code null} for none
	 * @param cluster whether the budget is one shared by the replicas, else one per replica
	 */
	static BudgetFleet run(@Nullable RetryBudgetConfig budget, boolean cluster, int replicas, int callsPerSecond) {
		return run(budget, cluster, replicas, callsPerSecond, 42);
	}

	/**
	 * Runs a fleet through the three phases with the downstream's failures drawn from {@code seed}.
	 * @param budget the budget's settings, or {@code null} for none
	 * @param cluster whether the budget is one shared by the replicas, else one per replica
	 * @param seed the seed of the draws that decide which attempts fail
	 */
	static BudgetFleet run(@Nullable RetryBudgetConfig budget, boolean cluster, int replicas, int callsPerSecond,
			long seed) {
		BudgetFleet fleet = new BudgetFleet();
		SplittableRandom random = new SplittableRandom(seed);
		VirtualTime time = new VirtualTime();
		int[] second = { 0 };
		RetryCallback<String, RuntimeException> downstream = context -> {
			int now = second[0];
			if (context.getRetryCount() > 0) {
				fleet.retries[now]++;
				if (context.getRetryCount() == 1) {
					fleet.retriedCalls[now]++;
				}
			}
			double failing = FAILING[now / PHASE_SECONDS];
			if (failing == 1.0 || random.nextDouble() < failing) {
				if (context.getRetryCount() == 0) {
					fleet.failedCalls[now]++;
				}
				throw FAILURE;
			}
			return "ok";
		};
		List<RetryTemplate> templates = new ArrayList<>();
		for (int replica = 0; replica < replicas; replica++) {
			RetryConfig config = RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.none()).budget(budget, null)
				.build();
			templates.add(RetryTemplate.builder().name("replica-" + replica).config(config).virtualTime(time).build());
		}
		long max = (budget != null) ? budget.getMaxTokens() * 1000L : 0;
		long[] clusterTokens = { max };
		LongUnaryOperator exchange = delta -> clusterTokens[0] = Math.max(0, Math.min(max, clusterTokens[0] + delta));
		SplittableRandom draws = new SplittableRandom(7);
		if (cluster) {
			templates.forEach(template -> budgetOf(template).synchronise(exchange, replicas, draws));
		}
		int interval = 1000 / callsPerSecond;
		int[] callAt = new int[replicas];
		int[] syncAt = new int[replicas];
		for (int replica = 0; replica < replicas; replica++) {
			callAt[replica] = (int) ((long) replica * interval / replicas);
			syncAt[replica] = replica * SYNC_MILLIS / replicas;
		}
		int end = FAILING.length * PHASE_SECONDS * 1000;
		for (int millis = 0; millis < end; millis++) {
			second[0] = millis / 1000;
			for (int replica = 0; replica < replicas; replica++) {
				if (millis % interval == callAt[replica]) {
					fleet.calls[second[0]]++;
					try {
						templates.get(replica).execute(downstream);
					}
					catch (IllegalStateException expected) {
						// the call failed after its attempts
					}
				}
				if (cluster && millis % SYNC_MILLIS == syncAt[replica]) {
					budgetOf(templates.get(replica)).synchronise(exchange, replicas, draws);
				}
			}
			time.advance(ONE_MILLI);
		}
		return fleet;
	}

	private static RetryBudget budgetOf(RetryTemplate template) {
		return Objects.requireNonNull(template.getBudget(), "a cluster run has a budget");
	}

	/** {@return the sum of {@code counts} over the seconds from {@code from} (inclusive) to {@code to} (exclusive)} */
	static long sum(long[] counts, int from, int to) {
		long sum = 0;
		for (int i = from; i < to; i++) {
			sum += counts[i];
		}
		return sum;
	}

}
