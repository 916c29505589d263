package dev.retrykit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import dev.retrykit.budget.RetryBudgetConfig;
import org.jspecify.annotations.Nullable;

/**
 * Retry budgets in a fleet, in virtual time ({@link BudgetFleet}): fleets of 5, 20 and 100 replicas at 1,
 * 10 and 500 calls per second per replica, a downstream failing 1 %, then 100 %, then 50 % of the attempts
 * for 60 s each, with no budget, per-replica and cluster token buckets (10 tokens, 0.1 per success), and
 * per-replica and cluster ratio budgets (ratio 0.1, 10 per second, 10 s window; and the DESIGN's example,
 * ratio 0.2). One row per budget and fleet; then the targets, checked. Deterministic (seeded).
 *
 * <p>With {@code -Dseeds=N} every fleet runs N times, the downstream's failures drawn from seeds 42 to
 * 42 + N − 1: the 1 % phase's share of failed calls retried is then pooled over the runs (a 60 s phase at
 * 1 % sees a few hundred failed calls per fleet, so one run's share moves by about ± 0.3 %), and the
 * worst second is the worst of every run. The other columns are the first run's.
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
		int seeds = Integer.getInteger("seeds", 1);
		if (seeds < 1) {
			throw new IllegalArgumentException("-Dseeds must be at least 1, was " + seeds);
		}
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
					List<BudgetFleet> fleets = new ArrayList<>();
					for (int seed = 0; seed < seeds; seed++) {
						fleets.add(BudgetFleet.run(run.config, run.cluster, replicas, rate, 42 + seed));
					}
					Row row = new Row(run, replicas, rate, fleets);
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

	/** One row: a fleet's counts (one run per seed, the first shown) turned into the table's columns. */
	record Row(Case run, int replicas, int rate, List<BudgetFleet> fleets) {

		BudgetFleet fleet() {
			return this.fleets.get(0);
		}

		/** The 1 % phase's share of failed calls retried, pooled over every run. */
		double retriedShare() {
			long retried = 0;
			long failed = 0;
			for (BudgetFleet fleet : this.fleets) {
				retried += BudgetFleet.sum(fleet.retriedCalls, 0, PHASE);
				failed += BudgetFleet.sum(fleet.failedCalls, 0, PHASE);
			}
			return share(retried, failed);
		}

		/** The 1 % phase's share of failed calls retried, in the run where it was lowest. */
		double lowestRetriedShare() {
			double lowest = 1;
			for (BudgetFleet fleet : this.fleets) {
				lowest = Math.min(lowest,
						share(BudgetFleet.sum(fleet.retriedCalls, 0, PHASE), BudgetFleet.sum(fleet.failedCalls, 0, PHASE)));
			}
			return lowest;
		}

		double extraLoad(int from, int to) {
			return extraLoad(fleet(), from, to);
		}

		private static double extraLoad(BudgetFleet fleet, int from, int to) {
			return share(BudgetFleet.sum(fleet.retries, from, to), BudgetFleet.sum(fleet.calls, from, to));
		}

		/** The 100 % phase's worst second, of every run. */
		double worstSecond() {
			double worst = 0;
			for (BudgetFleet fleet : this.fleets) {
				for (int second = PHASE; second < 2 * PHASE; second++) {
					worst = Math.max(worst, extraLoad(fleet, second, second + 1));
				}
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
			String retried = String.format(Locale.ROOT, "%.2f %%", 100 * retriedShare());
			if (this.fleets.size() > 1) {
				retried += String.format(Locale.ROOT, " (lowest run %.2f %%)", 100 * lowestRetriedShare());
			}
			return String.format(Locale.ROOT, "| %s | %s | %d | %d | %s | %.3f | %.3f | %.3f | %s | %.3f | %.4f | %.4f |",
					this.run.budget, this.run.scope, this.replicas, this.rate, retried, extraLoad(0, PHASE),
					extraLoad(PHASE, PHASE + 1), worstSecond(), Double.isNaN(bound) ? "" : String.format(Locale.ROOT, "%.3f", bound),
					extraLoad(PHASE, PHASE + 10), extraLoad(PHASE, 2 * PHASE), extraLoad(2 * PHASE, 3 * PHASE));
		}

		void check(List<String> missed, @Nullable Row perReplicaRatio) {
			String name = this.run.budget + " " + this.run.scope + ", " + this.replicas + " x " + this.rate + "/s";
			if (this.run != Case.NONE && retriedShare() < 0.99) {
				missed.add(String.format(Locale.ROOT,
						"1 %% failing: %s retried %.2f %% of the failed calls over %d run(s), %.2f %% in the lowest (target 99 %%)",
						name, 100 * retriedShare(), this.fleets.size(), 100 * lowestRetriedShare()));
			}
			if (this.run.cluster && !Double.isNaN(bound()) && worstSecond() > bound() + 1e-9) {
				missed.add(String.format(Locale.ROOT, "100 %% failing: %s put %.3f extra load on its worst second (bound %.3f)",
						name, worstSecond(), bound()));
			}
			if (this.run.cluster && perReplicaRatio != null && this.replicas == 100 && this.rate == 1
					&& this.run.config == perReplicaRatio.run.config
					&& extraLoad(PHASE, PHASE + 10) > perReplicaRatio.extraLoad(PHASE, PHASE + 10) / 10 + 1e-9) {
				String miss = String.format(Locale.ROOT, "100 %% failing, first 10 s: %s %.3f, more than 1/10 of per-replica's %.3f",
						name, extraLoad(PHASE, PHASE + 10), perReplicaRatio.extraLoad(PHASE, PHASE + 10));
				RetryBudgetConfig config = Objects.requireNonNull(this.run.config);
				double floor = config.getRatio() + config.getMinPerSecond() / (double) (this.replicas * this.rate);
				if (floor > perReplicaRatio.extraLoad(PHASE, PHASE + 10) / 10 + 1e-9) {
					// The contract allows the ratio of the calls *plus* the reserve: no such budget does better.
					miss += String.format(Locale.ROOT, " (beyond any budget that keeps DESIGN's 'ratio plus a reserve of "
							+ "min-per-second': %.1f + %d ÷ %d calls/s = %.3f)", config.getRatio(), config.getMinPerSecond(),
							this.replicas * this.rate, floor);
				}
				missed.add(miss);
			}
		}

		private static double share(long part, long whole) {
			return (whole == 0) ? 1 : part / (double) whole;
		}

	}

}
