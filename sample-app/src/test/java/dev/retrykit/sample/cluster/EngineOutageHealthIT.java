package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.JsonPath;
import dev.retrykit.testing.redis.RedisTestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What operators see while the engine is away, from the built jar as they run it: two replicas of the sample
 * share state through Redis ({@code cluster-redis}) while {@code redis-server} is killed for 6 s, or through
 * their embedded Hazelcast members ({@code cluster}) while one replica is frozen with {@code SIGSTOP} for 6 s.
 * Throughout, every {@code /actuator/health} answer of a live replica comes within 1 s and says {@code UP},
 * while the {@code retries} contributor's details show the engine unreachable (and how stale the replica's
 * view is); once the engine is back each replica logs one warning for the outage and one line that it is
 * reachable again. Runs in {@code mvn verify} after {@code package} (Failsafe); it stops every process it starts.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EngineOutageHealthIT {

	private static final Duration OUTAGE = Duration.ofSeconds(6);

	private static final Duration LONGEST_HEALTH = Duration.ofSeconds(1);

	private static final String UNREACHABLE = "The retry cluster's engine is unreachable";

	private static final String BACK = "The retry cluster's engine is reachable again";

	private static Path jar() {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the sample's executable jar (built by package)").exists();
		return jar;
	}

	@Test
	void aKilledRedisLeavesTheApplicationUpWithTheEngineUnreachableInTheDetails() throws Exception {
		try (RedisTestServer redis = new RedisTestServer()) {
			List<ReplicaProcess> replicas = new ArrayList<>();
			try {
				for (String name : List.of("redis-a", "redis-b")) {
					replicas.add(ReplicaProcess.start(jar(), "outage-" + name, "--spring.profiles.active=cluster-redis",
							"--spring.data.redis.port=" + redis.port(), "--logging.level.root=warn",
							"--logging.level.dev.retrykit.cluster=info"));
				}
				for (ReplicaProcess replica : replicas) {
					awaitReachable(replica, 2);
					replica.post("/downstream/script/payments/down");
				}
				List<Long> logged = new ArrayList<>();
				for (ReplicaProcess replica : replicas) {
					awaitNoOpenSpell(replica);
					logged.add(Files.size(replica.log));
				}
				redis.kill();
				Health worst = watchHealth(replicas, "O-");
				redis.restart();
				for (int i = 0; i < replicas.size(); i++) {
					awaitBackInLog(replicas.get(i), logged.get(i));
				}
				assertThat(worst.sawUnreachable).as("the engine's reach shown DOWN in the details during the outage").isTrue();
			}
			finally {
				for (ReplicaProcess replica : replicas) {
					replica.close();
				}
			}
		}
	}

	@Test
	void aFrozenHazelcastMemberLeavesTheOtherReplicaUpWithTheEngineUnreachableInTheDetails() throws Exception {
		int hazelcastPort = FreePorts.block(HazelcastMemberConfiguration.PORTS);
		List<ReplicaProcess> replicas = new ArrayList<>();
		try {
			for (String name : List.of("hazelcast-a", "hazelcast-b")) {
				replicas.add(ReplicaProcess.start(jar(), "outage-" + name, "--spring.profiles.active=cluster",
						"--sample.hazelcast.port=" + hazelcastPort, "--logging.level.root=warn",
						"--logging.level.dev.retrykit.cluster=info"));
			}
			for (ReplicaProcess replica : replicas) {
				awaitReachable(replica, 2);
				replica.post("/downstream/script/payments/down");
			}
			ReplicaProcess live = replicas.get(0);
			ReplicaProcess frozen = replicas.get(1);
			awaitNoOpenSpell(live);
			long logged = Files.size(live.log);
			frozen.freeze();
			Health worst;
			try {
				worst = watchHealth(List.of(live), "H-");
			}
			finally {
				frozen.thaw();
			}
			awaitBackInLog(live, logged);
			assertThat(worst.sawUnreachable).as("the engine's reach shown DOWN in the details during the freeze").isTrue();
			assertThat(Files.readString(live.log)).as("the module-access warning, silenced by the jar's manifest")
				.doesNotContain("without proper access to required Java packages");
		}
		finally {
			for (ReplicaProcess replica : replicas) {
				replica.close();
			}
		}
	}

	private static void awaitReachable(ReplicaProcess replica, int members) {
		ReplicaProcess.await(replica + " serves and reaches the engine with " + members + " members", Duration.ofSeconds(90),
				() -> {
					String retries = replica.bodyOrNull("/actuator/retries");
					return retries != null && retries.contains("\"reachable\":true")
							&& retries.contains("\"members\":" + members);
				});
	}

	/**
	 * Asks every replica for its health, one request after another, for the outage's length, with a payment
	 * (a stateful call, which reads and writes the engine) of a new order before each round.
	 */
	private static Health watchHealth(List<ReplicaProcess> replicas, String orders) throws IOException, InterruptedException {
		Health health = new Health();
		long end = System.nanoTime() + OUTAGE.toNanos();
		int order = 0;
		while (System.nanoTime() - end < 0) {
			for (ReplicaProcess replica : replicas) {
				replica.post("/shop/orders/" + orders + (++order) + "/pay");
				long start = System.nanoTime();
				HttpResponse<String> response = replica.get("/actuator/health");
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				assertThat(took).as("/actuator/health of " + replica + " took").isLessThan(LONGEST_HEALTH);
				assertThat(response.statusCode()).as("/actuator/health of " + replica + ": " + response.body()).isEqualTo(200);
				String body = response.body();
				assertThat((String) JsonPath.read(body, "$.status")).isEqualTo("UP");
				assertThat((String) JsonPath.read(body, "$.components.retries.status")).isEqualTo("UP");
				Boolean reachable = JsonPath.read(body, "$.components.retries.details.cluster.reachable");
				if (!reachable) {
					health.sawUnreachable = true;
					assertThat((String) JsonPath.read(body, "$.components.retries.details.cluster.staleFor")).isNotBlank();
				}
			}
		}
		return health;
	}

	/**
	 * Once the engine is back: one warning for the outage, then one line saying it is reachable again, in what the
	 * replica logged since the outage began (a cold JVM's first operations may have been slower than the timeout
	 * before: short spells of their own, each logged once).
	 */
	private static void awaitBackInLog(ReplicaProcess replica, long from) throws IOException {
		ReplicaProcess.await(replica + " logs that the engine is reachable again", Duration.ofSeconds(60), () -> {
			try {
				return logSince(replica, from).contains(BACK);
			}
			catch (IOException ex) {
				return false;
			}
		});
		String log = logSince(replica, from);
		assertThat(occurrences(log, UNREACHABLE)).as("unreachable warnings in " + replica.log).isEqualTo(1);
		assertThat(occurrences(log, BACK)).as("reachable-again lines in " + replica.log).isEqualTo(1);
	}

	/**
	 * Waits until every unreachable spell the replica logged so far has its reachable-again line: a cold JVM on a
	 * loaded machine may miss the engine's timeout while it starts, and a spell still open when the outage begins
	 * would be the outage's spell, its warning logged before the outage's part of the log.
	 */
	private static void awaitNoOpenSpell(ReplicaProcess replica) {
		ReplicaProcess.await(replica + " has closed every unreachable spell of its start", Duration.ofSeconds(60), () -> {
			try {
				String log = logSince(replica, 0);
				return occurrences(log, UNREACHABLE) == occurrences(log, BACK);
			}
			catch (IOException ex) {
				return false;
			}
		});
	}

	private static String logSince(ReplicaProcess replica, long from) throws IOException {
		byte[] log = Files.readAllBytes(replica.log);
		return new String(log, (int) Math.min(from, log.length), (int) Math.max(0, log.length - from),
				java.nio.charset.StandardCharsets.UTF_8);
	}

	private static int occurrences(String text, String part) {
		int count = 0;
		for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
			count++;
		}
		return count;
	}

	/** What the health answers showed. */
	private static final class Health {

		boolean sawUnreachable;

	}

}
