package dev.retrykit.benchmarks;

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

/**
 * Replicas of a service calling one downstream, in virtual time: 500 calls per second per replica,
 * the downstream failing 1 % of the calls for 60 s, then every call for 60 s, then half of them for 60 s. Each call is a real
 * {@link RetryTemplate} call (3 attempts, no backoff) with no budget, with a budget per replica, or
 * with one budget shared by all replicas the way {@code budget.scope: cluster} shares it: every replica
 * decides on its local view and exchanges its change every 100 ms
 * ({@link RetryBudget#synchronise(java.util.function.LongUnaryOperator, int, java.util.random.RandomGenerator)},
 * the cluster's tokens kept and clamped as {@code HazelcastClusterEngine} keeps them), spending between
 * two exchanges at most its part of the cluster's headroom; the first exchange happens at start-up,
 * before any call, as {@code RetryCluster.start()} makes it, the later ones staggered over the interval.
 * Prints the retries at the onset of the outage (its first second), attempts per call and the extra load
 * retries put on the downstream, for each phase. Deterministic (seeded).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.retrykit.benchmarks.ClusterBudgetSimulation}
 */
public final class ClusterBudgetSimulation {

	static final int CALLS_PER_SECOND = 500;

	/** How long each phase lasts: 1 % of calls failing, then every call, then half of them. */
	static final int PHASE_MILLIS = 60_000;

	/** The share of calls failing in each phase. */
	private static final double[] FAILING = { 0.01, 1.0, 0.5 };

	private static final String[] PHASES = { "1 % failing, 60 s", "100 % failing, 60 s", "50 % failing, 60 s" };

	static final int SYNC_MILLIS = 100;

	private static final RuntimeException FAILURE = new IllegalStateException("downstream failed") {

		private static final long serialVersionUID = 1L;

		@Override
		public synchronized Throwable fillInStackTrace() {
			return this;
		}

	};

	enum Budgets {

		NONE, PER_REPLICA, CLUSTER

	}

	private ClusterBudgetSimulation() {
	}

	public static void main(String[] args) {
		System.out.println("| budgets | replicas | phase | calls | retries | retries in the phase's first second | attempts per call | extra load |");
		System.out.println("|---|---|---|---|---|---|---|---|");
		run(Budgets.PER_REPLICA, 5);
		run(Budgets.CLUSTER, 5);
		run(Budgets.NONE, 20);
		run(Budgets.PER_REPLICA, 20);
		run(Budgets.CLUSTER, 20);
		run(Budgets.PER_REPLICA, 100);
		run(Budgets.CLUSTER, 100);
	}

	static void run(Budgets budgets, int replicas) {
		SplittableRandom random = new SplittableRandom(42);
		long[] clusterMilliTokens = { RetryBudgetConfig.DEFAULT_MAX_TOKENS * 1000L };
		long[][] phase = new long[PHASES.length][3];
		int[] now = { 0 };
		RetryCallback<String, RuntimeException> downstream = context -> {
			int current = now[0] / PHASE_MILLIS;
			long[] counts = phase[current];
			counts[1]++;
			if (context.getRetryCount() > 0 && now[0] % PHASE_MILLIS < 1000) {
				counts[2]++;
			}
			if (FAILING[current] == 1.0 || random.nextDouble() < FAILING[current]) {
				throw FAILURE;
			}
			return "ok";
		};
		List<RetryTemplate> templates = new ArrayList<>();
		VirtualTime time = new VirtualTime();
		for (int replica = 0; replica < replicas; replica++) {
			RetryConfig config = RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.none())
				.budget((budgets == Budgets.NONE) ? null : RetryBudgetConfig.ofDefaults(), null).build();
			templates.add(RetryTemplate.builder().name("replica-" + replica).config(config).sleeper(time).timeSource(time)
				.scheduler(time).build());
		}
		SplittableRandom draws = new SplittableRandom(7);
		LongUnaryOperator exchange = delta -> clusterMilliTokens[0] = Math.max(0,
				Math.min(RetryBudgetConfig.DEFAULT_MAX_TOKENS * 1000L, clusterMilliTokens[0] + delta));
		if (budgets == Budgets.CLUSTER) {
			templates.forEach(template -> budgetOf(template).synchronise(exchange, replicas, draws));
		}
		int interval = 1000 / CALLS_PER_SECOND;
		for (int millis = 0; millis < PHASES.length * PHASE_MILLIS; millis++) {
			now[0] = millis;
			for (int replica = 0; replica < replicas; replica++) {
				if ((millis + replica) % interval == 0) {
					phase[millis / PHASE_MILLIS][0]++;
					try {
						templates.get(replica).execute(downstream);
					}
					catch (IllegalStateException expected) {
						// the call failed after its attempts
					}
				}
				RetryBudget budget = budgetOf(templates.get(replica));
				if (budgets == Budgets.CLUSTER && (millis + replica * SYNC_MILLIS / replicas) % SYNC_MILLIS == 0) {
					budget.synchronise(exchange, replicas, draws);
				}
			}
		}
		for (int i = 0; i < PHASES.length; i++) {
			print(budgets, replicas, PHASES[i], phase[i]);
		}
	}

	private static void print(Budgets budgets, int replicas, String phase, long[] counts) {
		long calls = counts[0];
		long attempts = counts[1];
		System.out.printf("| %s | %d | %s | %,d | %,d | %,d | %.4f | %.3f %% |%n", budgets.name().toLowerCase().replace('_', '-'),
				replicas, phase, calls, attempts - calls, counts[2], attempts / (double) calls, 100.0 * (attempts - calls) / calls);
	}

	/** {@return the budget of a template built above, every one of which has one} */
	private static RetryBudget budgetOf(RetryTemplate template) {
		return Objects.requireNonNull(template.getBudget(), "a template without a budget");
	}

}
