package dev.retrykit.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulation's key claims ({@code benchmarks}' {@code ClusterBudgetSimulation}) on a small fleet sharing its
 * budget through {@link RetryCluster} and an in-memory engine, in virtual time: ten replicas at ten calls a
 * second each, through real templates (3 attempts, no backoff), exchanging every 100 ms; a downstream failing
 * 1 % of the attempts for 30 s, then all of them for 20 s.
 */
class ClusterBudgetFleetTests {

	private static final int REPLICAS = 10;

	private static final int CALLS_PER_SECOND = 10;

	private static final int HEALTHY_SECONDS = 30;

	private static final int OUTAGE_SECONDS = 20;

	private static final RetryBudgetConfig RATIO = RetryBudgetConfig.builder().ratio(0.1).minPerSecond(2)
		.window(Duration.ofSeconds(10)).build();

	private final List<RetryCluster> opened = new ArrayList<>();

	@AfterEach
	void close() {
		this.opened.forEach(RetryCluster::close);
	}

	@ParameterizedTest
	@ValueSource(strings = { "token-bucket", "ratio" })
	void aClusterBudgetRetriesEveryIsolatedFailureOfAHealthyFleet(String kind) {
		Fleet fleet = run(kind.equals("ratio") ? RATIO : RetryBudgetConfig.ofDefaults(), true);
		assertThat(fleet.failedCalls(0, HEALTHY_SECONDS)).isPositive();
		assertThat(fleet.retriedCalls(0, HEALTHY_SECONDS)).isEqualTo(fleet.failedCalls(0, HEALTHY_SECONDS));
	}

	@ParameterizedTest
	@ValueSource(strings = { "token-bucket", "ratio" })
	void anOutagesOnsetIsNoWorseThanWithPerReplicaBudgets(String kind) {
		RetryBudgetConfig config = kind.equals("ratio") ? RATIO : RetryBudgetConfig.ofDefaults();
		Fleet cluster = run(config, true);
		Fleet perReplica = run(config, false);
		for (int second = HEALTHY_SECONDS + 1; second <= HEALTHY_SECONDS + OUTAGE_SECONDS; second++) {
			assertThat(cluster.retries(HEALTHY_SECONDS, second)).as("retries of the outage's first %d s", second - HEALTHY_SECONDS)
				.isLessThanOrEqualTo(perReplica.retries(HEALTHY_SECONDS, second));
		}
	}

	@Test
	void aClusterRatioBudgetHoldsTheFleetWithinTheRatioAndOneReserveInEverySecondOfAnOutage() {
		Fleet fleet = run(RATIO, true);
		double reserve = RATIO.getMinPerSecond() * RATIO.getWindow().toSeconds();
		for (int second = HEALTHY_SECONDS; second < HEALTHY_SECONDS + OUTAGE_SECONDS; second++) {
			long calls = fleet.calls(second, second + 1);
			assertThat(fleet.retries(second, second + 1)).as("second %d", second)
				.isLessThanOrEqualTo((long) Math.floor(RATIO.getRatio() * calls + reserve));
		}
		// Over a window, the ratio of the window's calls and one reserve for the fleet, where per-replica budgets
		// have a reserve each.
		long firstWindow = fleet.retries(HEALTHY_SECONDS, HEALTHY_SECONDS + 10);
		assertThat(firstWindow).isLessThanOrEqualTo((long) (RATIO.getRatio() * fleet.calls(HEALTHY_SECONDS, HEALTHY_SECONDS + 10)
				+ reserve));
		Fleet perReplica = run(RATIO, false);
		assertThat(firstWindow).isLessThanOrEqualTo(perReplica.retries(HEALTHY_SECONDS, HEALTHY_SECONDS + 10) / 2);
	}

	private Fleet run(RetryBudgetConfig budget, boolean cluster) {
		VirtualTime time = new VirtualTime();
		FakeClusterEngine.Store store = new FakeClusterEngine.Store();
		List<RetryTemplate> templates = new ArrayList<>();
		List<RetryCluster> clusters = new ArrayList<>();
		for (int replica = 0; replica < REPLICAS; replica++) {
			RetryCluster shared = RetryCluster.builder(new FakeClusterEngine(store)).replicaId("r" + replica)
				.timeout(Duration.ofSeconds(10)).timeSource(time).clusterBudget("shop").build();
			this.opened.add(shared);
			RetryRegistry registry = shared.bind(RetryRegistry.builder().virtualTime(time))
				.instance("inventory", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
					.budget(budget, "shop"))
				.build();
			if (cluster) {
				shared.attach(registry);
				clusters.add(shared);
			}
			templates.add(registry.template("inventory"));
		}
		clusters.forEach(RetryCluster::synchronise);
		Fleet fleet = new Fleet();
		SplittableRandom random = new SplittableRandom(42);
		int[] second = { 0 };
		RetryCallback<String, RuntimeException> downstream = context -> {
			if (context.getRetryCount() > 0) {
				fleet.retries[second[0]]++;
				if (context.getRetryCount() == 1) {
					fleet.retriedCalls[second[0]]++;
				}
			}
			if (second[0] >= HEALTHY_SECONDS || random.nextDouble() < 0.01) {
				if (context.getRetryCount() == 0) {
					fleet.failedCalls[second[0]]++;
				}
				throw new IllegalStateException("down");
			}
			return "ok";
		};
		int interval = 1000 / CALLS_PER_SECOND;
		for (int millis = 0; millis < (HEALTHY_SECONDS + OUTAGE_SECONDS) * 1000; millis++) {
			second[0] = millis / 1000;
			for (int replica = 0; replica < REPLICAS; replica++) {
				if (millis % interval == replica * interval / REPLICAS) {
					fleet.calls[second[0]]++;
					try {
						templates.get(replica).execute(downstream);
					}
					catch (IllegalStateException expected) {
						// the call failed after its attempts
					}
				}
				if (cluster && millis % 100 == replica * 100 / REPLICAS) {
					clusters.get(replica).synchronise();
				}
			}
			time.advance(Duration.ofMillis(1));
		}
		return fleet;
	}

	/** Per second: calls, calls whose first attempt failed, of those the ones retried, and retries. */
	private static final class Fleet {

		final long[] calls = new long[HEALTHY_SECONDS + OUTAGE_SECONDS];

		final long[] failedCalls = new long[this.calls.length];

		final long[] retriedCalls = new long[this.calls.length];

		final long[] retries = new long[this.calls.length];

		long calls(int from, int to) {
			return sum(this.calls, from, to);
		}

		long failedCalls(int from, int to) {
			return sum(this.failedCalls, from, to);
		}

		long retriedCalls(int from, int to) {
			return sum(this.retriedCalls, from, to);
		}

		long retries(int from, int to) {
			return sum(this.retries, from, to);
		}

		private static long sum(long[] counts, int from, int to) {
			long sum = 0;
			for (int i = from; i < to; i++) {
				sum += counts[i];
			}
			return sum;
		}

	}

}
