package dev.retrykit.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.spi.CircuitSignal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a member or a client with write rights can plant: entries no replica can decode, values over
 * the size limit, long keys, circuit messages that no registered member sent.
 */
class ClusterEntryTrustTests {

	private final FakeClusterEngine.Store store = new FakeClusterEngine.Store();

	private final VirtualTime time = new VirtualTime();

	private final List<RetryCluster> opened = new ArrayList<>();

	private final ClassLoader contextLoader = Thread.currentThread().getContextClassLoader();

	@AfterEach
	void close() {
		this.opened.forEach(RetryCluster::close);
		Thread.currentThread().setContextClassLoader(this.contextLoader);
	}

	private RetryCluster replica(String... allowed) {
		RetryCluster cluster = RetryCluster.builder(new FakeClusterEngine(this.store)).replicaId("a")
			.timeout(Duration.ofSeconds(5)).timeSource(this.time).allowedAttributes(List.of(allowed))
			.clusterCircuit("pricing", 1).clusterCircuit("orders", 2).build();
		this.opened.add(cluster);
		return cluster;
	}

	private RetryRegistry registry(RetryCluster cluster) {
		RetryRegistry registry = cluster.bind(RetryRegistry.builder().virtualTime(this.time))
			.instance("payments", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none()))
			.instance("pricing", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.instance("orders", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.build();
		cluster.attach(registry);
		return registry;
	}

	private static void failOnce(RetryTemplate template, Object key) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("broken");
		}, RetryState.of(key)));
	}

	private static int countSeen(RetryTemplate template, Object key) {
		return template.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(), RetryState.of(key));
	}

	private int storedCount(String instance, String key) {
		return SnapshotCodec.jdkValuesOnly().decode(this.store.contexts.get(instance + "/" + key)).getRetryCount();
	}

	@Test
	void anAllowedClassThatCannotBeLinkedLeavesTheCallAsForAFreshKeyCountedAndReplacedByTheNextWrite() {
		// The replica's threads, the engine's included, find application classes through this loader.
		Thread.currentThread().setContextClassLoader(PlantedBytes.unlinkableLoader());
		RetryCluster cluster = replica("dev.retrykit.planted.*");
		RetryTemplate payments = registry(cluster).template("payments");
		this.store.contexts.put("payments/k", PlantedBytes.snapshotWithSerializedAttribute("payments", 2, "order",
				PlantedBytes.serializedObjectNamed(PlantedBytes.UNLINKABLE)));

		assertThat(countSeen(payments, "k")).as("as for a fresh key").isZero();
		failOnce(payments, "k");

		assertThat(storedCount("payments", "k")).as("replaced by the next write").isEqualTo(1);
		ClusterStatus status = cluster.status();
		assertThat(status.undecodableEntries()).isEqualTo(1);
		assertThat(status.reachable()).isTrue();
		assertThat(status.fallbacks()).isZero();
	}

	@Test
	void aStoredValueOverTheSizeLimitIsAnUndecodableEntryNotAnEngineFailure() {
		RetryCluster cluster = replica();
		RetryTemplate payments = registry(cluster).template("payments");
		this.store.contexts.put("payments/k", new byte[SnapshotCodec.MAX_BYTES + 1]);

		assertThat(countSeen(payments, "k")).isZero();
		failOnce(payments, "k");

		assertThat(storedCount("payments", "k")).isEqualTo(1);
		ClusterStatus status = cluster.status();
		assertThat(status.undecodableEntries()).isEqualTo(1);
		assertThat(status.reachable()).isTrue();
		assertThat(status.fallbacks()).isZero();
	}

	@Test
	void aStatefulKeyOverOneKilobyteIsSharedAsTheSha256OfItsUtf8Bytes() throws NoSuchAlgorithmException {
		RetryTemplate payments = registry(replica()).template("payments");
		String longKey = "order-" + "é".repeat(4_000);
		String atTheBound = "o".repeat(SharedEntries.MAX_KEY_BYTES);
		String lookingHashed = "sha256:0123";

		failOnce(payments, longKey);
		failOnce(payments, longKey);
		failOnce(payments, atTheBound);
		failOnce(payments, lookingHashed);

		String hashed = "sha256:" + HexFormat.of()
			.formatHex(MessageDigest.getInstance("SHA-256").digest(longKey.getBytes(StandardCharsets.UTF_8)));
		assertThat(this.store.contexts).containsKeys("payments/" + hashed, "payments/" + atTheBound)
			.doesNotContainKeys("payments/" + longKey, "payments/" + lookingHashed);
		assertThat(storedCount("payments", hashed)).as("the long key's count continues").isEqualTo(2);
		assertThat(this.store.contexts.keySet()).allSatisfy(
				key -> assertThat(key.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1_100));
	}

	@Test
	void whatTheStoreHeldIsLoggedWithoutLineSeparatorsOrBidiControls() {
		assertThat(ClusterCounters.printable("key\u2028[ERROR] forged\u202e\u2066txt\n")).isEqualTo("key?[ERROR] forged??txt?");
	}

	@Test
	void aTripFromAnUnregisteredSenderDoesNotCountTowardAQuorumAndIsCounted() {
		RetryCluster cluster = replica();
		CircuitBreaker orders = registry(cluster).template("orders").getCircuitBreaker();

		this.store.deliver("TRIP|forged|orders", CircuitSignal.UNREGISTERED_SENDER);
		this.store.deliver("TRIP|forged-2|orders", "");
		this.store.deliver("TRIP|b|orders", "member-9");
		assertThat(orders.getState()).as("one registered member tripped").isEqualTo(CircuitState.CLOSED);
		assertThat(cluster.status().droppedSignals()).isEqualTo(2);

		this.store.deliver("TRIP|c|orders", "member-8");
		assertThat(orders.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void aManualTransitionFromAnUnregisteredSenderIsIgnoredAndCounted() {
		RetryCluster cluster = replica();
		CircuitBreaker pricing = registry(cluster).template("pricing").getCircuitBreaker();

		this.store.deliver("FORCE_OPEN|forged|pricing", CircuitSignal.UNREGISTERED_SENDER);
		assertThat(pricing.getState()).isEqualTo(CircuitState.CLOSED);
		assertThat(cluster.status().droppedSignals()).isEqualTo(1);

		this.store.deliver("FORCE_OPEN|b|pricing", "member-9");
		assertThat(pricing.getState()).isEqualTo(CircuitState.OPEN);
		this.store.deliver("CLOSE|forged|pricing", CircuitSignal.UNREGISTERED_SENDER);
		assertThat(pricing.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(cluster.status().droppedSignals()).isEqualTo(2);
	}

}
