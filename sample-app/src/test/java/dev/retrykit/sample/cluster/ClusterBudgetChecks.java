package dev.retrykit.sample.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster ratio budget across processes ({@link ClusterBudgetIT} on Hazelcast, {@link ClusterBudgetOnRedisIT}
 * on Redis): three replicas of the sample's cluster profile, each its own process from the built jar on
 * 127.0.0.1, share {@code inventory}'s
 * budget ({@code ratio: 0.2, min-per-second: 10, window: 10s}, one reserve of 100 retries for the fleet).
 * An isolated failure is retried on every replica; then every replica's inventory downstream goes down and
 * the fleet's retries stay within the budget's bound: 0.2 × the fleet's calls plus the fleet's reserve
 * (once per window that the outage spans), where per-replica budgets would each have had a reserve of 100.
 * The inventory instance runs without backoff here, so that the outage's calls come fast. Runs after
 * {@code package} (Maven Failsafe), bounded in time; it starts and stops every process it runs.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ClusterBudgetChecks {

	private static final int CALLS_PER_REPLICA = 60;

	private static final Pattern CALLS = Pattern.compile("\"calls\":\\{\"successfulWithoutRetry\":(\\d+),"
			+ "\"successfulWithRetry\":(\\d+),\"failedWithoutRetry\":(\\d+),\"failedWithRetry\":(\\d+)\\},\"attempts\":(\\d+)");

	private final List<ReplicaProcess> replicas = new java.util.concurrent.CopyOnWriteArrayList<>();

	/** When every replica served (its budget made by then), on {@code System.nanoTime()}. */
	private long servingSinceNanos;

	/** {@return the arguments that choose the engine's profile and reach it}; may start what the engine needs */
	abstract List<String> engineArguments() throws Exception;

	/** Stops what {@link #engineArguments()} started, after the replicas. */
	void stopEngine() throws Exception {
	}

	@BeforeAll
	void startReplicas() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the sample's executable jar (built by package)").exists();
		List<String> engine = engineArguments();
		for (String name : List.of("a", "b", "c")) {
			List<String> arguments = new java.util.ArrayList<>(engine);
			arguments.addAll(List.of("--retry.instances.inventory.backoff.type=none", "--logging.level.root=warn"));
			this.replicas.add(ReplicaProcess.start(jar, getClass().getSimpleName() + "-" + name, arguments.toArray(String[]::new)));
		}
		for (ReplicaProcess replica : this.replicas) {
			ReplicaProcess.await(replica + " serves and sees three members", Duration.ofSeconds(150), () -> {
				String retries = replica.bodyOrNull("/actuator/retries");
				return retries != null && retries.contains("\"members\":3");
			});
		}
		this.servingSinceNanos = System.nanoTime();
	}

	@AfterAll
	void stopReplicas() throws Exception {
		try {
			for (ReplicaProcess replica : this.replicas) {
				replica.close();
			}
		}
		finally {
			stopEngine();
		}
	}

	@Test
	@Order(1)
	void everyReplicaRetriesAnIsolatedFailure() throws Exception {
		for (ReplicaProcess replica : this.replicas) {
			assertThat(replica.post("/downstream/script/inventory/fail?count=1").statusCode()).isEqualTo(200);
			assertThat(replica.get("/shop/stock/SKU-1").statusCode()).as(replica + " answers after a retry").isEqualTo(200);
			long[] counts = counts(replica);
			assertThat(counts[1]).as(replica + "'s calls successful with retry").isEqualTo(1);
		}
	}

	@Test
	@Order(2)
	void inAFullOutageTheFleetsRetriesStayWithinTheClusterBudget() throws Exception {
		// The bound below is a window's: the outage starts once every replica's budget has counted a full window
		// (a budget younger than its window counts its calls at the rate it has seen them: RatioBudgetTests).
		ReplicaProcess.await("every replica's budget has counted a full window", Duration.ofSeconds(30),
				() -> System.nanoTime() - this.servingSinceNanos >= Duration.ofSeconds(11).toNanos());
		long callsBefore = 0;
		long retriesBefore = 0;
		for (ReplicaProcess replica : this.replicas) {
			long[] counts = counts(replica);
			callsBefore += counts[0] + counts[1] + counts[2] + counts[3];
			retriesBefore += counts[4] - (counts[0] + counts[1] + counts[2] + counts[3]);
			assertThat(replica.post("/downstream/script/inventory/down").statusCode()).isEqualTo(200);
		}
		long start = System.nanoTime();
		for (int call = 0; call < CALLS_PER_REPLICA; call++) {
			for (ReplicaProcess replica : this.replicas) {
				replica.get("/shop/stock/SKU-" + call);
			}
		}
		double seconds = (System.nanoTime() - start) / 1e9;
		long calls = -callsBefore;
		long retries = -retriesBefore;
		for (ReplicaProcess replica : this.replicas) {
			long[] counts = counts(replica);
			long replicaCalls = counts[0] + counts[1] + counts[2] + counts[3];
			calls += replicaCalls;
			retries += counts[4] - replicaCalls;
		}
		assertThat(calls).isEqualTo(3L * CALLS_PER_REPLICA);
		// Within one window: 0.2 x its calls (the outage's and the few before) + the fleet's reserve of 100. An
		// outage that spans k windows: the reserve once per window, and a call may fund retries in two of them.
		int windows = (int) Math.ceil(seconds / 10);
		double bound = 0.2 * (calls + callsBefore) * Math.min(2, windows) + 100 * windows;
		System.out.printf("%s: %d calls, %d retries in %.1f s of outage, bound %.1f%n", getClass().getSimpleName(), calls,
				retries, seconds, bound);
		assertThat(retries).as("the fleet's retries in %.1f s of outage (per-replica budgets: up to %d)", seconds,
				3 * Math.min(3 * CALLS_PER_REPLICA, 112)).isLessThanOrEqualTo((long) bound);
		assertThat(retries).as("the fleet's reserve is used").isPositive();
		for (ReplicaProcess replica : this.replicas) {
			assertThat(replica.bodyOrNull("/actuator/retries/inventory")).contains("\"kind\":\"ratio\"", "\"scope\":\"cluster\"");
		}
	}

	/** {@return the instance's calls (without retry ok, with retry ok, without retry failed, with retry failed) and attempts} */
	private static long[] counts(ReplicaProcess replica) throws Exception {
		String body = replica.get("/actuator/retries/inventory").body();
		Matcher matcher = CALLS.matcher(body);
		assertThat(matcher.find()).as("calls and attempts in %s", body).isTrue();
		long[] counts = new long[5];
		for (int i = 0; i < counts.length; i++) {
			counts[i] = Long.parseLong(matcher.group(i + 1));
		}
		return counts;
	}

}
