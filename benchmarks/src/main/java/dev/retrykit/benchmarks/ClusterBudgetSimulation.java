package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.retrykit.budget.RetryBudgetConfig;
import org.jspecify.annotations.Nullable;

/**
 * Retry budgets in a fleet, in virtual time ({@link BudgetFleet}): fleets of 5, 20 and 100 replicas at 1,
 * 10 and 500 calls per second per replica, a downstream failing 1 %, then 100 %, then 50 % of the attempts
 * for 60 s each, with no budget, per-replica and cluster token buckets (10 tokens, 0.1 per success), and
 * per-replica and cluster ratio budgets (ratio 0.1, 10 per second, 10 s window; and the DESIGN's example,
 * ratio 0.2). One row per budget and fleet; then the targets, checked. Deterministic (seeded).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.retrykit.benchmarks.ClusterBudgetSimulation}
 */
public final class ClusterBudgetSimulation {

	static final int[] REPLICAS = { 5, 20, 100 };

	static final int[] CALLS_PER_SECOND = { 1, 10, 500 };

	static final RetryBudgetConfig TOKEN_BUCKET = RetryBudgetConfig.ofDefaults();

	static final RetryBudgetConfig RATIO = RetryBudgetConfig.builder().ratio(0.1).minPerSecond(10)
		.window(Duration.ofSeconds(10)).build();

	static final RetryBudgetConfig DESIGN_RATIO = RetryBudgetConfig.builder().ratio(0.2).minPerSecond(10)
		.window(Duration.ofSeconds(10)).build();

	private static final int PHASE = BudgetFleet.PHASE_SECONDS;

	private ClusterBudgetSimulation() {
	}

	public static void main(String[] args) {
		System.out.println("| budget | scope | replicas | calls/s each | 1 %: failed calls retried | 1 %: extra load "
				+ "| 100 %: extra load, 1st second | 100 %: worst second | ratio + reserve ÷ calls | 100 %: first 10 s "
				+ "| 100 %: 60 s | 50 %: extra load |");
		System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
		List<String> missed = new ArrayList<>();
		for (int replicas : REPLICAS) {
			for (int rate : CALLS_PER_SECOND) {
				Row perReplicaRatio = null;
				for (Case run : Case.values()) {
					if (run == Case.DESIGN_RATIO_PER_REPLICA || run == Case.DESIGN_RATIO_CLUSTER) {
						if (replicas != 100 || rate != 1) {
							continue;
						}
					}
					Row row = new Row(run, replicas, rate, BudgetFleet.run(run.config, run.cluster, replicas, rate));
					System.out.println(row.markdown());
					if (run == Case.RATIO_PER_REPLICA || run == Case.DESIGN_RATIO_PER_REPLICA) {
						perReplicaRatio = row;
					}
					row.check(missed, perReplicaRatio);
				}
			}
		}
		System.out.println();
		System.out.println(missed.isEmpty() ? "Every target met." : "Targets missed:\n- " + String.join("\n- ", missed));
	}

	/** A budget and scope of the table. */
	enum Case {

		NONE("none", "", null, false),

		TOKEN_PER_REPLICA("token bucket", "per replica", TOKEN_BUCKET, false),

		TOKEN_CLUSTER("token bucket", "cluster", TOKEN_BUCKET, true),

		RATIO_PER_REPLICA("ratio 0.1", "per replica", RATIO, false),

		RATIO_CLUSTER("ratio 0.1", "cluster", RATIO, true),

		DESIGN_RATIO_PER_REPLICA("ratio 0.2", "per replica", DESIGN_RATIO, false),

		DESIGN_RATIO_CLUSTER("ratio 0.2", "cluster", DESIGN_RATIO, true);

		final String budget;

		final String scope;

		final @Nullable RetryBudgetConfig config;

		final boolean cluster;

		Case(String budget, String scope, @Nullable RetryBudgetConfig config, boolean cluster) {
			this.budget = budget;
			this.scope = scope;
			this.config = config;
			this.cluster = cluster;
		}

	}

	/** One row: a fleet's counts turned into the table's columns. */
	record Row(Case run, int replicas, int rate, BudgetFleet fleet) {

		double retriedShare() {
			return share(BudgetFleet.sum(this.fleet.retriedCalls, 0, PHASE), BudgetFleet.sum(this.fleet.failedCalls, 0, PHASE));
		}

		double extraLoad(int from, int to) {
			return share(BudgetFleet.sum(this.fleet.retries, from, to), BudgetFleet.sum(this.fleet.calls, from, to));
		}

		double worstSecond() {
			double worst = 0;
			for (int second = PHASE; second < 2 * PHASE; second++) {
				worst = Math.max(worst, extraLoad(second, second + 1));
			}
			return worst;
		}

		/** The cluster ratio budget's bound for one second: ratio + the fleet's reserve ÷ the fleet's calls of a second. */
		double bound() {
			RetryBudgetConfig config = this.run.config;
			if (config == null || config.getKind() != RetryBudgetConfig.Kind.RATIO) {
				return Double.NaN;
			}
			double reserve = config.getMinPerSecond() * config.getWindow().toSeconds();
			double fleetReserve = this.run.cluster ? reserve : reserve * this.replicas;
			return config.getRatio() + fleetReserve / ((double) this.replicas * this.rate);
		}

		String markdown() {
			double bound = bound();
			return String.format(Locale.ROOT, "| %s | %s | %d | %d | %.2f %% | %.3f | %.3f | %.3f | %s | %.3f | %.4f | %.4f |",
					this.run.budget, this.run.scope, this.replicas, this.rate, 100 * retriedShare(), extraLoad(0, PHASE),
					extraLoad(PHASE, PHASE + 1), worstSecond(), Double.isNaN(bound) ? "" : String.format(Locale.ROOT, "%.3f", bound),
					extraLoad(PHASE, PHASE + 10), extraLoad(PHASE, 2 * PHASE), extraLoad(2 * PHASE, 3 * PHASE));
		}

		void check(List<String> missed, @Nullable Row perReplicaRatio) {
			String name = this.run.budget + " " + this.run.scope + ", " + this.replicas + " x " + this.rate + "/s";
			if (this.run != Case.NONE && retriedShare() < 0.99) {
				missed.add(String.format(Locale.ROOT, "1 %% failing: %s retried %.2f %% of the failed calls (target 99 %%)",
						name, 100 * retriedShare()));
			}
			if (this.run.cluster && !Double.isNaN(bound()) && worstSecond() > bound() + 1e-9) {
				missed.add(String.format(Locale.ROOT, "100 %% failing: %s put %.3f extra load on its worst second (bound %.3f)",
						name, worstSecond(), bound()));
			}
			if (this.run.cluster && perReplicaRatio != null && this.replicas == 100 && this.rate == 1
					&& this.run.config == perReplicaRatio.run.config
					&& extraLoad(PHASE, PHASE + 10) > perReplicaRatio.extraLoad(PHASE, PHASE + 10) / 10 + 1e-9) {
				missed.add(String.format(Locale.ROOT, "100 %% failing, first 10 s: %s %.3f, more than 1/10 of per-replica's %.3f",
						name, extraLoad(PHASE, PHASE + 10), perReplicaRatio.extraLoad(PHASE, PHASE + 10)));
			}
		}

		private static double share(long part, long whole) {
			return (whole == 0) ? 1 : part / (double) whole;
		}

	}

}
