package dev.retrykit.sample.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real faults outside one JVM: three replicas of the sample's {@code cluster} profile, each its own
 * process from the built jar on 127.0.0.1, share the {@code payments} stateful contexts. Orders fail
 * (every replica's downstream is down) on one replica after another while one replica is killed with
 * SIGKILL and another frozen with SIGSTOP for longer than {@code retry.cluster.timeout}: no call on a
 * live replica waits longer than the timeout plus its own work, no failure count is lost or doubled,
 * and the frozen replica rejoins and agrees once thawed; a success on one replica while another is
 * frozen removes the shared count. A replica started after a circuit was opened by hand starts with it
 * open. Runs after {@code package} (Maven Failsafe),
 * bounded in time; it starts and stops every process it runs.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterFaultsIT {

	private static final int ORDERS = 12;

	/** A generous bound for one failing call: the 100 ms engine timeout twice (read, write) plus its own work. */
	private static final Duration LONGEST_CALL = Duration.ofMillis(1500);

	private static final Pattern ENTRY = Pattern.compile("\\{\"key\":\"((?:order|paid)-\\d+)\",\"retryCount\":(\\d+)");

	private static final List<ReplicaProcess> replicas = new java.util.concurrent.CopyOnWriteArrayList<>();

	@BeforeAll
	static void startReplicas() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the sample's executable jar (built by package)").exists();
		for (String name : List.of("a", "b", "c")) {
			replicas.add(start(jar, "replica-" + name));
		}
		for (ReplicaProcess replica : replicas) {
			awaitMembers(replica);
			assertThat(replica.post("/downstream/script/payments/down").statusCode()).isEqualTo(200);
			// Warm up the replica's path before any call is timed.
			replica.post("/shop/orders/warm-up-" + replica.name + "/pay");
		}
	}

	/** The first of the members' ports, free on this machine: never the sample's own 5701-5703. */
	private static final int HAZELCAST_PORT = FreePorts.block(HazelcastMemberConfiguration.PORTS);

	private static ReplicaProcess start(Path jar, String name) throws Exception {
		return ReplicaProcess.start(jar, name, "--spring.profiles.active=cluster", "--sample.hazelcast.port=" + HAZELCAST_PORT,
				"--management.endpoint.retries.show-values=always", "--management.endpoint.retries.access=unrestricted",
				"--logging.level.root=warn");
	}

	private static void awaitMembers(ReplicaProcess replica) {
		ReplicaProcess.await(replica + " serves and sees three members", Duration.ofSeconds(120), () -> {
			String retries = replica.bodyOrNull("/actuator/retries");
			return retries != null && retries.contains("\"members\":3");
		});
	}

	@AfterAll
	static void stopReplicas() throws Exception {
		for (ReplicaProcess replica : replicas) {
			replica.close();
		}
	}

	@Test
	@Order(1)
	void countsSurviveAKilledAndAFrozenReplicaAndNoCallWaitsOnThem() throws Exception {
		ReplicaProcess a = replicas.get(0);
		ReplicaProcess b = replicas.get(1);
		ReplicaProcess c = replicas.get(2);
		payEveryOrder(c);

		c.kill();
		payEveryOrder(b);
		for (int order = 1; order <= ORDERS; order++) {
			assertThat(b.post("/shop/orders/paid-" + order + "/pay").statusCode()).isEqualTo(502);
		}
		// The failures b counted are shared before it is frozen (on a loaded machine some went through b's
		// local state and are written back at its next synchronisation): a write-back after a's successes
		// below would bring their counts back, as the engine keeps no record of removals.
		ReplicaProcess.await(b + " has written back what it counted locally", Duration.ofSeconds(30), () -> {
			String retries = b.bodyOrNull("/actuator/retries");
			return retries != null && retries.contains("\"pendingWriteBacks\":0");
		});

		b.freeze();
		try {
			long frozenAt = System.nanoTime();
			payEveryOrder(a);
			// The downstream is back for replica a: each paid-N order succeeds there while b is frozen, and its
			// success removes the shared count, also where b owns the entry (written back once b answers).
			assertThat(a.post("/downstream/script/payments/up").statusCode()).isEqualTo(200);
			for (int order = 1; order <= ORDERS; order++) {
				long start = System.nanoTime();
				assertThat(a.post("/shop/orders/paid-" + order + "/pay").statusCode()).isEqualTo(200);
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONGEST_CALL);
			}
			// Frozen for longer than retry.cluster.timeout (100 ms) by far, also after the calls.
			ReplicaProcess.await("3 s have passed since the freeze", Duration.ofSeconds(30),
					() -> System.nanoTime() - frozenAt > Duration.ofSeconds(3).toNanos());
		}
		finally {
			b.thaw();
		}

		for (ReplicaProcess live : List.of(a, b)) {
			try {
				ReplicaProcess.await(live + " counts three failures of every order and none of the paid ones",
						Duration.ofSeconds(60), () -> {
							Map<String, Integer> counts = countsOf(live);
							return counts.size() == ORDERS && counts.values().stream().allMatch(count -> count == 3);
						});
			}
			catch (AssertionError ex) {
				throw new AssertionError(ex.getMessage() + "; it counts " + countsOf(live) + " and shows "
						+ live.bodyOrNull("/actuator/retries"), ex);
			}
			assertThat(countsOf(live)).as("the counts on " + live).hasSize(ORDERS).allSatisfy(
					(order, count) -> assertThat(count).as(order).isEqualTo(3));
		}
		ReplicaProcess.await(b + " is reachable again", Duration.ofSeconds(30), () -> {
			String retries = b.bodyOrNull("/actuator/retries");
			return retries != null && retries.contains("\"reachable\":true");
		});
	}

	@Test
	@Order(2)
	void aReplicaStartedAfterACircuitWasOpenedByHandStartsWithItOpen() throws Exception {
		ReplicaProcess a = replicas.get(0);
		assertThat(a.post("/actuator/retries/pricing", "{\"action\":\"open-circuit\"}").statusCode()).isEqualTo(200);
		ReplicaProcess killed = replicas.stream().filter(replica -> !replica.isAlive()).findFirst().orElse(null);
		if (killed == null) {
			killed = replicas.get(2);
			killed.kill();
		}
		ReplicaProcess restarted = start(Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar")),
				killed.name + "-restarted");
		replicas.add(restarted);
		awaitMembers(restarted);
		assertThat(restarted.bodyOrNull("/actuator/retries/pricing")).contains("\"state\":\"OPEN\"")
			.contains("\"forcedOpen\":true");
	}

	/** One failing payment of every order on {@code replica}, each answered in time. */
	private static void payEveryOrder(ReplicaProcess replica) throws Exception {
		for (int order = 1; order <= ORDERS; order++) {
			long start = System.nanoTime();
			int status = replica.post("/shop/orders/order-" + order + "/pay").statusCode();
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(status).as("order-" + order + " on " + replica).isEqualTo(502);
			assertThat(took).as("order-" + order + " on " + replica + " took").isLessThan(LONGEST_CALL);
		}
	}

	/** The payments contexts a replica sees, by order. */
	private static Map<String, Integer> countsOf(ReplicaProcess replica) {
		Map<String, Integer> counts = new TreeMap<>();
		String body = replica.bodyOrNull("/actuator/retries/payments");
		if (body == null) {
			return counts;
		}
		Matcher entry = ENTRY.matcher(body);
		while (entry.find()) {
			counts.put(entry.group(1), Integer.parseInt(entry.group(2)));
		}
		return counts;
	}

}
