package dev.retrykit.hazelcast;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.spi.RetryContextSnapshot;
import dev.retrykit.testing.hazelcast.HazelcastTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class HazelcastClusterEngineTests {

	private static HazelcastTestCluster hazelcast;

	private final List<RetryCluster> replicas = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		hazelcast = new HazelcastTestCluster(3);
	}

	@AfterAll
	static void stopCluster() {
		hazelcast.close();
	}

	@AfterEach
	void closeReplicas() {
		this.replicas.forEach(RetryCluster::close);
	}

	/** A replica of the service: its own registry, sharing state through the given Hazelcast instance. */
	private RetryRegistry replica(HazelcastInstance instance, String prefix) {
		RetryCluster cluster = RetryCluster.builder(HazelcastClusterEngine.builder(instance).prefix(prefix).build())
			.timeout(Duration.ofSeconds(5)).clusterBudget("shop").clusterCircuit("inventory", 1).build();
		this.replicas.add(cluster);
		RetryRegistry registry = cluster.bind(RetryRegistry.builder())
			.instance("inventory", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.ofDefaults(), "shop")
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.instance("redelivered", null, config -> config.maxAttempts(-1).backoff(BackoffPolicy.none()))
			.build();
		cluster.attach(registry);
		return registry;
	}

	private RetryCluster cluster(int index) {
		return this.replicas.get(index);
	}

	@Test
	void aStatefulCountContinuesAcrossThreeReplicasAndIsStoredAsBytes() {
		List<RetryTemplate> templates = List.of(replica(hazelcast.member(0), "count").template("inventory"),
				replica(hazelcast.member(1), "count").template("inventory"),
				replica(hazelcast.member(2), "count").template("inventory"));
		RetryState state = RetryState.of("order-17");
		int[] seen = new int[3];
		for (int i = 0; i < 3; i++) {
			int replica = i;
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> templates.get(replica).execute(context -> {
				seen[replica] = context.getRetryCount();
				throw new IOException("downstream broken");
			}, state));
		}
		assertThat(seen).containsExactly(0, 1, 2);
		assertThat(hazelcast.member(2).getMap("count.contexts.inventory").get("order-17")).isInstanceOf(byte[].class);
		assertThatExceptionOfType(ExhaustedRetryException.class)
			.isThrownBy(() -> templates.get(0).execute((RetryCallback<String, IOException>) context -> "not run", state))
			.withCauseInstanceOf(RetryContextSnapshot.RecordedFailure.class);
		assertThat(templates.get(1).getContextCache().size()).isZero();
	}

	@Test
	void aClientReplicaContinuesTheCountOfAMemberReplica() {
		RetryTemplate onMember = replica(hazelcast.member(0), "client").template("inventory");
		RetryTemplate onClient = replica(hazelcast.startClient(), "client").template("inventory");
		RetryState state = RetryState.of("order-18");
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> onMember.execute(context -> {
			throw new IOException("broken");
		}, state));
		assertThat(onClient.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(), state))
			.isEqualTo(1);
	}

	@Test
	void anOpenCircuitOnOneReplicaIsSeenOnTheOthersAndAManualCloseClosesThemAll() throws InterruptedException {
		CircuitBreaker first = replica(hazelcast.member(0), "circuit").template("inventory").getCircuitBreaker();
		CircuitBreaker second = replica(hazelcast.member(1), "circuit").template("inventory").getCircuitBreaker();
		CircuitBreaker third = replica(hazelcast.member(2), "circuit").template("inventory").getCircuitBreaker();
		CountDownLatch opened = awaitState(2, CircuitState.OPEN, second, third);
		first.forceOpen();
		assertThat(opened.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(second.isForcedOpen()).isTrue();
		CountDownLatch closed = awaitState(2, CircuitState.CLOSED, first, third);
		second.close();
		assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
		CountDownLatch tripped = awaitState(2, CircuitState.OPEN, first, second);
		fail(third);
		fail(third);
		assertThat(tripped.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(first.isForcedOpen()).isFalse();
	}

	@Test
	void listingContextsReadsOnlyAsManyAsAskedAndHandsBackWhatIsStoredUndecoded() {
		HazelcastClusterEngine engine = HazelcastClusterEngine.builder(hazelcast.member(0)).prefix("listing").build();
		for (int i = 0; i < 50; i++) {
			assertThat(engine.compareAndSetContext("orders", "key-" + i, null, new byte[] { (byte) i })).isTrue();
		}
		assertThat(engine.contexts("orders", 5)).hasSize(5)
			.allSatisfy(stored -> assertThat(stored.bytes()).hasSize(1));
		assertThat(engine.contextCount("orders")).isEqualTo(50);
	}

	@Test
	void circuitMessagesNameTheirSenderAsTheClusterKnowsItAndNonTextIsHandedOnAsNull() throws InterruptedException {
		HazelcastClusterEngine first = HazelcastClusterEngine.builder(hazelcast.member(0)).prefix("senders").build();
		HazelcastClusterEngine second = HazelcastClusterEngine.builder(hazelcast.member(1)).prefix("senders").build();
		List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
		CountDownLatch two = new CountDownLatch(2);
		try (AutoCloseable subscription = first.subscribeCircuits((message, sender) -> {
			received.add(message + " from " + sender);
			two.countDown();
		})) {
			second.publishCircuit("TRIP|claims-to-be-someone-else|inventory");
			hazelcast.member(1).getTopic("senders.circuits").publish(42L);
			assertThat(two.await(10, TimeUnit.SECONDS)).isTrue();
		}
		catch (Exception ex) {
			throw new AssertionError(ex);
		}
		assertThat(received).containsExactlyInAnyOrder(
				"TRIP|claims-to-be-someone-else|inventory from " + second.localMember(), "null from " + second.localMember());
	}

	@Test
	void contextsTheSharedMapEvictsWhenFullAreCountedByTheMembersThatOwnedThem() {
		List<HazelcastClusterEngine> engines = new ArrayList<>();
		for (int member = 0; member < 3; member++) {
			engines.add(HazelcastClusterEngine.builder(hazelcast.member(member)).prefix("evict").contextCapacity(1).build());
		}
		HazelcastClusterEngine writer = engines.get(0);
		int written = 600;
		for (int key = 0; key < written; key++) {
			assertThat(writer.compareAndSetContext("redelivered", "k-" + key, null, new byte[] { 1 })).isTrue();
		}
		int stored = writer.contextCount("redelivered");
		long evicted = engines.stream().mapToLong(engine -> engine.contextEvictions("redelivered")).sum();
		assertThat(stored).isLessThan(written);
		assertThat(evicted).isEqualTo(written - stored);
		assertThat(writer.contextEvictions("no-such-instance")).isZero();
	}

	@Test
	void aReplicaCountsTheEvictionsOfTheSharedCacheWithItsOwn() {
		List<RetryTemplate> templates = new ArrayList<>();
		for (int member = 0; member < 3; member++) {
			RetryCluster cluster = RetryCluster
				.builder(HazelcastClusterEngine.builder(hazelcast.member(member)).prefix("evicting").contextCapacity(1).build())
				.timeout(Duration.ofSeconds(5)).build();
			this.replicas.add(cluster);
			RetryRegistry registry = cluster.bind(RetryRegistry.builder())
				.instance("redelivered", null, config -> config.maxAttempts(-1).backoff(BackoffPolicy.none()))
				.build();
			cluster.attach(registry);
			templates.add(registry.template("redelivered"));
		}
		int keys = 300;
		for (int key = 0; key < keys; key++) {
			int k = key;
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> templates.get(0).execute(context -> {
				throw new IOException("broken " + k);
			}, RetryState.of("e-" + k)));
		}
		int stored = templates.get(0).getContextCache().size();
		long evicted = templates.stream().mapToLong(template -> template.getContextCache().evictions()).sum();
		assertThat(stored).isLessThan(keys);
		assertThat(evicted).isEqualTo(keys - stored);
	}

	@Test
	void aMemberThatLeavesLosesNoSharedState() {
		HazelcastInstance leaving = hazelcast.startMember();
		RetryTemplate onLeaving = replica(leaving, "leave").template("redelivered");
		RetryBudget budget = replica(leaving, "leave").template("inventory").getBudget();
		for (int key = 0; key < 20; key++) {
			int k = key;
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> onLeaving.execute(context -> {
				throw new IOException("broken " + k);
			}, RetryState.of("m-" + k)));
		}
		budget.onFailure();
		cluster(1).synchronise();
		leaving.getLifecycleService().terminate();
		RetryTemplate onStaying = replica(hazelcast.member(0), "leave").template("redelivered");
		assertThat(onStaying.getContextCache().size()).isEqualTo(20);
		for (int key = 0; key < 20; key++) {
			assertThat(onStaying.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(),
					RetryState.of("m-" + key))).isEqualTo(1);
		}
		assertThat(hazelcast.member(0).getMap("leave.budgets").get("shop")).isEqualTo(9_000L);
	}

	@Test
	void aReplicaWhoseEngineIsTerminatedKeepsServingOnLocalStateAndCountsFallbacks() {
		HazelcastInstance own = hazelcast.startMember();
		RetryRegistry registry = replica(own, "terminated");
		RetryCluster cluster = cluster(0);
		assertThat(cluster.status().reachable()).isTrue();
		own.getLifecycleService().terminate();
		RetryTemplate template = registry.template("inventory");
		RetryState state = RetryState.of("order-19");
		long start = System.nanoTime();
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("broken");
		}, state));
		assertThat(template.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(), state))
			.isEqualTo(1);
		assertThat(template.execute((RetryCallback<String, RuntimeException>) context -> "served")).isEqualTo("served");
		cluster.synchronise();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		assertThat(cluster.status()).satisfies(status -> {
			assertThat(status.engine()).isEqualTo("hazelcast");
			assertThat(status.reachable()).isFalse();
			assertThat(status.fallbacks()).isPositive();
		});
	}

	private static CountDownLatch awaitState(int count, CircuitState state, CircuitBreaker... breakers) {
		CountDownLatch latch = new CountDownLatch(count);
		for (CircuitBreaker breaker : breakers) {
			breaker.addStateListener((b, from, to) -> {
				if (to == state) {
					latch.countDown();
				}
			});
		}
		return latch;
	}

	/** A failed call through the breaker, as an attempt that failed records it. */
	private static void fail(CircuitBreaker breaker) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> breaker.execute(() -> {
			throw new IOException("downstream broken");
		}));
	}

}
