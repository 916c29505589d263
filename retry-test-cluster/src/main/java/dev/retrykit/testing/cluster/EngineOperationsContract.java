package dev.retrykit.testing.cluster;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.ClusterEngine.StoredContext;
import dev.retrykit.cluster.SnapshotCodec;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The promises of every {@link ClusterEngine}'s operations, as a JUnit 5 test kit: an engine's tests
 * extend {@link ClusterEngineContract}, which adds those of a {@code RetryCluster} driving the engine, and
 * say how to make the engine of one more replica sharing one store ({@link #newReplica}), how to put
 * something that is not text on the circuit channel ({@link #publishNotText}) and something the engine
 * never writes at a context ({@link #storeForeignValue}). Each test works under a
 * namespace of its own (the engines' prefix), so the store may outlive a test.
 */
public abstract class EngineOperationsContract {

	/** For an engine's test class, which says how to make its replicas. */
	protected EngineOperationsContract() {
	}

	/** How long a test waits for something another thread or the engine does. */
	protected static final Duration PATIENCE = Duration.ofSeconds(20);

	private final List<ClusterEngine> replicas = new ArrayList<>();

	private final List<AutoCloseable> subscriptions = new ArrayList<>();

	/** This test's namespace: the prefix of every engine it makes. */
	protected String namespace = "";

	/**
	 * Makes the engine of one more replica; replicas made under the same namespace share their state.
	 * An engine that spreads its store over members should put successive replicas on different members.
	 * @param namespace the prefix of the engine's names
	 * @param contextTtl how long a context is kept after it was written
	 * @param contextCapacity the engine's bound on an instance's contexts, as its builder takes it
	 * @return the engine
	 */
	protected abstract ClusterEngine newReplica(String namespace, Duration contextTtl, int contextCapacity);

	/**
	 * Publishes something that is not text (e.g. bytes that are not UTF-8, or an object) on the circuit
	 * channel under the namespace, as anything that can reach the engine could.
	 * @param namespace the prefix of the engine's names
	 */
	protected abstract void publishNotText(String namespace);

	/**
	 * Stores, under the namespace, at the context {@code key} of instance {@code cache}, something that
	 * this engine never writes there, as anything that can write the store could: a value of another type
	 * where the store has types (a Redis hash, a Hazelcast map value that is not a {@code byte[]}), else a
	 * value longer than {@link SnapshotCodec#MAX_BYTES}.
	 * @param namespace the prefix of the engine's names
	 * @param cache the instance
	 * @param key the context's key
	 */
	protected abstract void storeForeignValue(String namespace, String cache, String key);

	@BeforeEach
	void pickANamespace() {
		this.namespace = "tck-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void closeReplicasAndSubscriptions() throws Exception {
		for (AutoCloseable subscription : this.subscriptions) {
			subscription.close();
		}
		for (ClusterEngine replica : this.replicas) {
			if (replica instanceof AutoCloseable closeable) {
				closeable.close();
			}
		}
	}

	/**
	 * Subscribes a receiver to the engine's circuit channel until the end of the test.
	 * @param engine the engine
	 * @param receiver the receiver
	 */
	protected void subscribe(ClusterEngine engine, ClusterEngine.CircuitMessageReceiver receiver) {
		this.subscriptions.add(engine.subscribeCircuits(receiver));
	}

	/** {@return one more replica with a context TTL of 1 hour and capacity 4096} */
	protected ClusterEngine replica() {
		return replica(Duration.ofHours(1), 4096);
	}

	/**
	 * One more replica in this test's namespace, closed after the test if it can be.
	 * @param contextTtl how long the replica's engine keeps a context entry
	 * @param contextCapacity how many context entries it keeps
	 * @return the replica's engine
	 */
	protected ClusterEngine replica(Duration contextTtl, int contextCapacity) {
		ClusterEngine engine = newReplica(this.namespace, contextTtl, contextCapacity);
		this.replicas.add(engine);
		return engine;
	}

	@Test
	void compareAndSetComparesTheStoredBytesAndKnowsAbsence() {
		ClusterEngine first = replica();
		ClusterEngine second = replica();
		byte[] a = { 1, 2, 3 };
		byte[] b = { 4, 5 };
		assertThat(first.compareAndSetContext("payments", "k", null, null)).isTrue();
		assertThat(first.compareAndSetContext("payments", "k", null, a)).isTrue();
		assertThat(second.compareAndSetContext("payments", "k", null, b)).isFalse();
		assertThat(second.compareAndSetContext("payments", "k", null, null)).isFalse();
		assertThat(second.compareAndSetContext("payments", "k", new byte[] { 1, 2, 4 }, b)).isFalse();
		assertThat(second.getContext("payments", "k")).containsExactly(a);
		assertThat(second.compareAndSetContext("payments", "k", new byte[] { 1, 2, 3 }, b)).isTrue();
		assertThat(first.getContext("payments", "k")).containsExactly(b);
		assertThat(first.compareAndSetContext("payments", "k", a, null)).isFalse();
		assertThat(first.compareAndSetContext("payments", "k", b, null)).isTrue();
		assertThat(second.getContext("payments", "k")).isNull();
		assertThat(second.getContext("orders", "k")).isNull();
	}

	@Test
	void storedBytesComeBackAsTheyAreHoweverMalformed() {
		ClusterEngine writer = replica();
		ClusterEngine reader = replica();
		byte[] notASnapshot = { (byte) 0xFF, 0, (byte) 0xC3, 0x28, ' ', '\n' };
		byte[] large = new byte[SnapshotCodec.MAX_BYTES];
		new java.util.Random(7).nextBytes(large);
		assertThat(writer.compareAndSetContext("payments", "garbage", null, notASnapshot)).isTrue();
		assertThat(writer.compareAndSetContext("payments", "large", null, large)).isTrue();
		assertThat(writer.compareAndSetContext("payments", "key with spaces, ünïcødé and {braces}", null, notASnapshot)).isTrue();
		assertThat(reader.getContext("payments", "garbage")).containsExactly(notASnapshot);
		assertThat(reader.getContext("payments", "large")).containsExactly(large);
		assertThat(reader.getContext("payments", "key with spaces, ünïcødé and {braces}")).containsExactly(notASnapshot);
		assertThat(reader.contexts("payments", 10)).extracting(StoredContext::key)
			.containsExactlyInAnyOrder("garbage", "large", "key with spaces, ünïcødé and {braces}");
	}

	@Test
	void aValueLongerThanASnapshotCanBeIsNotHandedBackAndTheBytesReadInsteadReplaceIt() {
		ClusterEngine writer = replica();
		ClusterEngine reader = replica();
		byte[] tooLong = new byte[SnapshotCodec.MAX_BYTES + 1];
		assertThat(writer.compareAndSetContext("payments", "too-long", null, tooLong)).isTrue();
		byte[] read = reader.getContext("payments", "too-long");
		assertThat(read).isNotNull().hasSizeLessThanOrEqualTo(SnapshotCodec.MAX_BYTES);
		assertThat(reader.contexts("payments", 10)).singleElement().satisfies(stored -> assertThat(stored.bytes()).containsExactly(read));
		assertThat(reader.compareAndSetContext("payments", "too-long", new byte[] { 1 }, new byte[] { 2 })).isFalse();
		assertThat(reader.compareAndSetContext("payments", "too-long", read, new byte[] { 2 })).isTrue();
		assertThat(writer.getContext("payments", "too-long")).containsExactly(2);
	}

	@Test
	void aForeignValueAtAContextReadsAsBytesThatAnyWriterCanReplace() {
		ClusterEngine engine = replica();
		storeForeignValue(this.namespace, "payments", "foreign");
		storeForeignValue(this.namespace, "payments", "removed");
		byte[] read = engine.getContext("payments", "foreign");
		assertThat(read).isNotNull().hasSizeLessThanOrEqualTo(SnapshotCodec.MAX_BYTES);
		assertThat(engine.contexts("payments", 10)).extracting(StoredContext::key).containsExactlyInAnyOrder("foreign", "removed");
		assertThat(engine.compareAndSetContext("payments", "foreign", null, new byte[] { 1 })).isFalse();
		assertThat(replica().compareAndSetContext("payments", "foreign", read, new byte[] { 1 })).isTrue();
		assertThat(engine.getContext("payments", "foreign")).containsExactly(1);
		assertThat(engine.compareAndSetContext("payments", "removed", engine.getContext("payments", "removed"), null)).isTrue();
		assertThat(engine.getContext("payments", "removed")).isNull();
	}

	@Test
	void concurrentCompareAndSetLoopsOnSeveralReplicasLoseNoUpdate() throws Exception {
		List<ClusterEngine> engines = List.of(replica(), replica(), replica());
		int threads = 6;
		int increments = 50;
		int keys = 3;
		CyclicBarrier start = new CyclicBarrier(threads);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				done.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < increments; i++) {
						increment(engines.get((thread + i) % engines.size()), "counter-" + ((thread + i) % keys));
					}
					return null;
				}));
			}
			for (Future<?> future : done) {
				future.get(PATIENCE.toSeconds() * 3, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		int total = 0;
		for (int key = 0; key < keys; key++) {
			total += ByteBuffer.wrap(engines.get(key % engines.size()).getContext("counters", "counter-" + key)).getInt();
		}
		assertThat(total).isEqualTo(threads * increments);
	}

	private static void increment(ClusterEngine engine, String key) {
		for (;;) {
			byte[] stored = engine.getContext("counters", key);
			int value = (stored != null) ? ByteBuffer.wrap(stored).getInt() : 0;
			if (engine.compareAndSetContext("counters", key, stored, ByteBuffer.allocate(4).putInt(value + 1).array())) {
				return;
			}
		}
	}

	@Test
	void contextsReadsAtMostTheLimitAndHandsBackKeysAndBytes() {
		ClusterEngine writer = replica();
		ClusterEngine reader = replica();
		for (int i = 0; i < 20; i++) {
			assertThat(writer.compareAndSetContext("payments", "k-" + i, null, new byte[] { (byte) i })).isTrue();
		}
		assertThat(reader.contexts("payments", 0)).isEmpty();
		List<StoredContext> five = reader.contexts("payments", 5);
		assertThat(five).hasSize(5).allSatisfy(stored -> assertThat(stored.bytes())
			.containsExactly((byte) Integer.parseInt(stored.key().substring(2))));
		assertThat(reader.contexts("payments", 100)).hasSize(20);
		assertThat(reader.contexts("orders", 100)).isEmpty();
	}

	@Test
	void removeClearAndCountKeepInstancesApart() {
		ClusterEngine first = replica();
		ClusterEngine second = replica();
		for (int i = 0; i < 4; i++) {
			first.compareAndSetContext("payments", "k-" + i, null, new byte[] { 1 });
			first.compareAndSetContext("orders", "k-" + i, null, new byte[] { 2 });
		}
		assertThat(second.contextCount("payments")).isEqualTo(4);
		second.removeContext("payments", "k-0");
		second.removeContext("payments", "no-such-key");
		assertThat(first.getContext("payments", "k-0")).isNull();
		assertThat(first.contextCount("payments")).isEqualTo(3);
		first.clearContexts("payments");
		assertThat(second.contextCount("payments")).isZero();
		assertThat(second.contexts("payments", 10)).isEmpty();
		assertThat(second.contextCount("orders")).isEqualTo(4);
		assertThat(second.getContext("orders", "k-3")).containsExactly(2);
		assertThat(second.contextCount("no-such-instance")).isZero();
		assertThat(first.compareAndSetContext("payments", "k-1", null, new byte[] { 3 })).isTrue();
		assertThat(second.contextCount("payments")).isEqualTo(1);
	}

	@Test
	void aContextIsGoneOnceItsTtlHasPassed() {
		ClusterEngine writer = replica(Duration.ofSeconds(1), 4096);
		ClusterEngine reader = replica(Duration.ofSeconds(1), 4096);
		assertThat(writer.compareAndSetContext("payments", "k", null, new byte[] { 1 })).isTrue();
		// Absence is checked with a compare-and-set from absent to absent: a read could count as a use.
		awaitTrue("the context expires", () -> reader.compareAndSetContext("payments", "k", null, null));
		assertThat(reader.getContext("payments", "k")).isNull();
		assertThat(reader.contexts("payments", 10)).isEmpty();
	}

	@Test
	void contextsBeyondTheCapacityAreEvictedAndCountedOnceOverTheReplicas() {
		List<ClusterEngine> engines = List.of(replica(Duration.ofHours(1), 10), replica(Duration.ofHours(1), 10),
				replica(Duration.ofHours(1), 10));
		int written = 300;
		for (int key = 0; key < written; key++) {
			assertThat(engines.get(key % 3).compareAndSetContext("payments", "k-" + key, null, new byte[] { 1 })).isTrue();
		}
		int stored = engines.get(0).contextCount("payments");
		long evicted = engines.stream().mapToLong(engine -> engine.contextEvictions("payments")).sum();
		assertThat(stored).isLessThan(written);
		assertThat(evicted).isEqualTo(written - stored);
		assertThat(engines.get(1).contextEvictions("no-such-instance")).isZero();
	}

	@Test
	void aBudgetStartsFullAndIsClampedIntoZeroAndItsCapacity() {
		ClusterEngine first = replica();
		ClusterEngine second = replica();
		assertThat(first.exchangeBudget("shop", 0, 10_000)).isEqualTo(10_000);
		assertThat(second.exchangeBudget("shop", -3_000, 10_000)).isEqualTo(7_000);
		assertThat(first.exchangeBudget("shop", 50_000, 10_000)).isEqualTo(10_000);
		assertThat(second.exchangeBudget("shop", -999_999, 10_000)).isZero();
		assertThat(first.exchangeBudget("shop", 0, 10_000)).isZero();
		assertThat(first.exchangeBudget("fresh", -1_500, 5_000)).isEqualTo(3_500);
		assertThat(second.exchangeBudget("fresh-full", 2_000, 5_000)).isEqualTo(5_000);
	}

	@Test
	void concurrentBudgetExchangesOnSeveralReplicasLoseNoChange() throws Exception {
		List<ClusterEngine> engines = List.of(replica(), replica(), replica());
		int threads = 6;
		int exchanges = 40;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				done.add(pool.submit(() -> {
					for (int i = 0; i < exchanges; i++) {
						engines.get((thread + i) % engines.size()).exchangeBudget("shop", -7, 1_000_000);
					}
					return null;
				}));
			}
			for (Future<?> future : done) {
				future.get(PATIENCE.toSeconds() * 3, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(engines.get(0).exchangeBudget("shop", 0, 1_000_000)).isEqualTo(1_000_000 - threads * exchanges * 7);
	}

	@Test
	void everySubscriberReceivesEveryMessageWithThePublishersMemberId() throws Exception {
		List<ClusterEngine> engines = List.of(replica(), replica(), replica());
		List<Received> received = new CopyOnWriteArrayList<>();
		CountDownLatch all = new CountDownLatch(6);
		for (ClusterEngine engine : engines) {
			this.subscriptions.add(engine.subscribeCircuits((message, sender) -> {
				received.add(new Received(engine, message, sender));
				all.countDown();
			}));
		}
		engines.get(1).publishCircuit("TRIP|replica-1|inventory");
		engines.get(2).publishCircuit("FORCE_OPEN|replica-2|pricing");
		assertThat(all.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("every message to every subscriber").isTrue();
		for (ClusterEngine engine : engines) {
			assertThat(received.stream().filter(r -> r.receiver == engine).map(r -> r.message + " from " + r.sender))
				.containsExactlyInAnyOrder("TRIP|replica-1|inventory from " + engines.get(1).localMember(),
						"FORCE_OPEN|replica-2|pricing from " + engines.get(2).localMember());
		}
	}

	@Test
	void aClosedSubscriptionReceivesNothingMore() throws Exception {
		ClusterEngine first = replica();
		ClusterEngine second = replica();
		List<String> closed = new CopyOnWriteArrayList<>();
		AutoCloseable subscription = first.subscribeCircuits((message, sender) -> closed.add(String.valueOf(message)));
		CountDownLatch open = new CountDownLatch(2);
		this.subscriptions.add(first.subscribeCircuits((message, sender) -> open.countDown()));
		subscription.close();
		second.publishCircuit("inventory|CLOSE|a");
		second.publishCircuit("inventory|CLOSE|b");
		assertThat(open.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(closed).isEmpty();
	}

	@Test
	void somethingThatIsNotTextOnTheChannelIsDeliveredAsNull() throws Exception {
		ClusterEngine engine = replica();
		Map<String, String> received = new ConcurrentHashMap<>();
		CountDownLatch both = new CountDownLatch(2);
		this.subscriptions.add(engine.subscribeCircuits((message, sender) -> {
			received.put((message != null) ? message : "<null>", sender);
			both.countDown();
		}));
		publishNotText(this.namespace);
		engine.publishCircuit("after|CLOSE|x");
		assertThat(both.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(received).containsKeys("<null>", "after|CLOSE|x");
		assertThat(received.values()).allSatisfy(sender -> assertThat(sender).isNotBlank());
	}

	@Test
	void circuitStatesAreStoredReadAndForgottenAcrossReplicas() {
		ClusterEngine first = replica();
		ClusterEngine second = replica();
		assertThat(second.circuitState("inventory")).isNull();
		first.storeCircuitState("inventory", "FORCE_OPEN");
		first.storeCircuitState("pricing", "CLOSE");
		assertThat(second.circuitState("inventory")).isEqualTo("FORCE_OPEN");
		second.storeCircuitState("inventory", "CLOSE");
		assertThat(first.circuitState("inventory")).isEqualTo("CLOSE");
		first.storeCircuitState("inventory", null);
		assertThat(second.circuitState("inventory")).isNull();
		assertThat(second.circuitState("pricing")).isEqualTo("CLOSE");
	}

	@Test
	void aReplicaKnowsItselfAndCountsAtLeastItself() {
		ClusterEngine engine = replica();
		assertThat(engine.members()).isPositive();
		assertThat(engine.localMember()).isNotBlank().isEqualTo(engine.localMember());
		assertThat(engine.engineName()).isNotBlank();
	}

	/**
	 * Waits, polling, until the condition holds, failing after {@link #PATIENCE}.
	 * @param what what is awaited, for the failure's message
	 * @param condition the condition
	 */
	protected static void awaitTrue(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Waited " + PATIENCE + " in vain for: " + what);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
	}

	private record Received(ClusterEngine receiver, @Nullable String message, String sender) {
	}

}
