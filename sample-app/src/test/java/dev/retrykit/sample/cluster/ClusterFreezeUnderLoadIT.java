package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Real faults outside one JVM, under load: three replicas of the sample, each the built jar in its own process
 * with the {@code cluster} profile on 127.0.0.1 (ports of their own), take stateful payment redeliveries in a
 * loop while one is killed with {@code SIGKILL} and another frozen with {@code SIGSTOP} for 8 s, far longer than
 * {@code retry.cluster.timeout}. Unlike {@code ClusterFaultsIT} (one delivery per order and phase), the
 * survivors keep delivering the same keys during each fault, so the engine is probed, found again and timed out
 * on again many times, which is where a write abandoned at the timeout can later land on top of its replay.
 *
 * <p>Checked: no call on a live replica waits longer than the engine's timeout (twice: a stateful call reads
 * and writes its entry) plus its own work; no failure count is lost or doubled (every order's shared count is
 * the number of its failed deliveries); the frozen replica rejoins after {@code SIGCONT} and agrees. Runs in
 * {@code mvn verify} after {@code package} (Failsafe), bounded in time; it stops every process it starts.
 */
class ClusterFreezeUnderLoadIT {

	private static final Duration ENGINE_TIMEOUT = Duration.ofMillis(250);

	/**
	 * What a call may take besides waiting for the engine: a local HTTP call to the scripted downstream, GC, a busy
	 * machine (three replicas, their cluster and the test on two cores: one call took 2.2 s in all there).
	 */
	private static final Duration OWN_WORK = Duration.ofMillis(3000);

	private static final Duration LONGEST_CALL = ENGINE_TIMEOUT.multipliedBy(2).plus(OWN_WORK);

	/** Well beyond {@link #LONGEST_CALL}, so that a call that waited for the frozen replica is caught as slow. */
	private static final Duration FREEZE = Duration.ofSeconds(8);

	private static final List<String> ORDERS = List.of("O-1", "O-2", "O-3", "O-4", "O-5", "O-6", "O-7", "O-8", "O-9");

	private final Map<String, Integer> failedDeliveries = new ConcurrentHashMap<>();

	private final List<String> slowCalls = new CopyOnWriteArrayList<>();

	private final AtomicInteger next = new AtomicInteger();

	@Test
	@Timeout(value = 5, unit = TimeUnit.MINUTES)
	void countsSurviveAKilledAndAFrozenReplica() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the sample's jar, built by package").exists();
		int hazelcastPort = FreePorts.block(HazelcastMemberConfiguration.PORTS);
		List<String> jvm = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
				"-Dhazelcast.heartbeat.interval.seconds=1", "-Dhazelcast.max.no.heartbeat.seconds=20");
		List<String> arguments = List.of("--spring.profiles.active=cluster", "--sample.hazelcast.port=" + hazelcastPort,
				"--spring.application.name=retrykit-faults-" + hazelcastPort,
				"--retry.cluster.timeout=" + ENGINE_TIMEOUT.toMillis() + "ms",
				"--retry.instances.payments.max-attempts=1000",
				"--management.endpoint.retries.show-values=always", "--spring.main.banner-mode=off",
				"--logging.level.root=warn");
		Path logs = Path.of("target", "cluster-freeze-under-load-it");
		List<SampleReplica> replicas = new ArrayList<>();
		ExecutorService redeliveries = Executors.newSingleThreadExecutor();
		try {
			for (String name : List.of("a", "b", "c")) {
				replicas.add(SampleReplica.start(jar, name, FreePorts.block(1), logs, jvm, arguments));
			}
			SampleReplica a = replicas.get(0);
			SampleReplica b = replicas.get(1);
			SampleReplica c = replicas.get(2);
			awaitCluster(replicas, 3, Duration.ofSeconds(150));
			for (SampleReplica replica : replicas) {
				assertThat(replica.post("/downstream/script/payments/down").statusCode()).isEqualTo(200);
			}
			for (int i = 0; i < ORDERS.size(); i++) {
				deliver(replicas.get(i % 3), nextOrder());
			}

			// SIGKILL in the middle of redeliveries on the other two.
			AtomicBoolean stop = new AtomicBoolean();
			AtomicInteger delivered = new AtomicInteger();
			Future<?> loop = redeliveries.submit(() -> {
				for (int i = 0; !stop.get(); i++) {
					deliver((i % 2 == 0) ? a : b, nextOrder());
					delivered.incrementAndGet();
				}
				return null;
			});
			await().atMost(Duration.ofSeconds(30)).until(() -> delivered.get() >= 6 || loop.isDone());
			c.kill();
			int atKill = delivered.get();
			awaitCluster(List.of(a, b), 2, Duration.ofSeconds(60));
			await().atMost(Duration.ofSeconds(30)).until(() -> delivered.get() >= atKill + 6 || loop.isDone());
			stop.set(true);
			loop.get(30, TimeUnit.SECONDS);
			awaitAgreement("after the SIGKILL", a, b);

			// SIGSTOP longer than the engine's timeout, while the live replica takes every redelivery.
			b.freeze();
			long frozenAt = System.nanoTime();
			while (System.nanoTime() - frozenAt < FREEZE.toNanos()) {
				deliver(a, nextOrder());
			}
			b.resume();
			awaitCluster(List.of(a, b), 2, Duration.ofSeconds(60));
			for (String order : ORDERS) {
				deliver(b, order);
			}

			assertThat(this.slowCalls).as("calls on live replicas slower than %s", LONGEST_CALL).isEmpty();
			awaitAgreement("after the SIGSTOP and SIGCONT of b", a, b);
		}
		finally {
			redeliveries.shutdownNow();
			for (SampleReplica replica : replicas) {
				replica.close();
			}
		}
	}

	/** Every order's shared count, on each replica, is the number of its failed deliveries so far. */
	private void awaitAgreement(String when, SampleReplica... replicas) {
		Map<String, Integer> expected = new TreeMap<>(this.failedDeliveries);
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			for (SampleReplica replica : replicas) {
				assertThat(sharedCounts(replica)).as("shared counts %s, on %s", when, replica).isEqualTo(expected);
			}
		});
	}

	private String nextOrder() {
		return ORDERS.get(Math.floorMod(this.next.getAndIncrement(), ORDERS.size()));
	}

	/** One delivery of a payment whose downstream is down: the stateful call fails (502) and counts one failure. */
	private void deliver(SampleReplica replica, String order) throws IOException, InterruptedException {
		long start = System.nanoTime();
		HttpResponse<String> response = replica.post("/shop/orders/" + order + "/pay");
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(response.statusCode()).as("delivery of %s on %s: %s", order, replica, response.body()).isEqualTo(502);
		this.failedDeliveries.merge(order, 1, Integer::sum);
		if (took.compareTo(LONGEST_CALL) > 0) {
			this.slowCalls.add(order + " on " + replica.name + " took " + took.toMillis() + " ms");
		}
	}

	/** @return the shared count of each order as the replica's endpoint lists it */
	private static Map<String, Integer> sharedCounts(SampleReplica replica) throws IOException, InterruptedException {
		HttpResponse<String> response = replica.get("/actuator/retries/payments");
		assertThat(response.statusCode()).isEqualTo(200);
		List<Map<String, Object>> entries = JsonPath.read(response.body(), "$.contextCache.entries");
		Map<String, Integer> counts = new TreeMap<>();
		entries.forEach(entry -> counts.put((String) entry.get("key"), (Integer) entry.get("retryCount")));
		return counts;
	}

	private static void awaitCluster(List<SampleReplica> replicas, int members, Duration atMost) {
		await().atMost(atMost).pollInterval(Duration.ofMillis(500)).until(() -> {
			for (SampleReplica replica : replicas) {
				assertThat(replica.isAlive()).as("%s is running", replica).isTrue();
				SampleReplica.ClusterView view = replica.cluster();
				if (view == null || view.members() != members || !view.reachable()) {
					return false;
				}
			}
			return true;
		});
	}

}
