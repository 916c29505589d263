package dev.retrykit.cluster;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongUnaryOperator;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.RetryContextSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** What a replica takes from the engine, which anything that can reach it may have written; and faults. */
class ClusterTrustTests {

	private final FakeClusterEngine.Store store = new FakeClusterEngine.Store();

	private final VirtualTime time = new VirtualTime();

	private final List<RetryCluster> opened = new ArrayList<>();

	@AfterEach
	void close() {
		this.opened.forEach(RetryCluster::close);
	}

	private RetryCluster replica(FakeClusterEngine engine, String id) {
		RetryCluster cluster = RetryCluster.builder(engine).replicaId(id).timeout(Duration.ofSeconds(5))
			.timeSource(this.time).clusterBudget("shop").clusterCircuit("pricing", 1).clusterCircuit("orders", 2)
			.build();
		this.opened.add(cluster);
		return cluster;
	}

	private RetryRegistry registry(RetryCluster cluster) {
		RetryRegistry registry = cluster.bind(RetryRegistry.builder().virtualTime(this.time))
			.instance("payments", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.notRecoverable(IllegalStateException.class))
			.instance("pricing", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.ofDefaults(), "shop")
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

	/** Waits (at most 10 s) until a late write the engine applies on its own thread has stored {@code count}. */
	private void awaitStoredCount(String key, int count) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (storedCount("payments", key) < count && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
		}
	}

	private int storedCount(String instance, String key) {
		return SnapshotCodec.jdkValuesOnly().decode(this.store.contexts.get(instance + "/" + key)).getRetryCount();
	}

	@Test
	void anEntryThatCannotBeDecodedIsTreatedAsAbsentCountedAndReplacedByTheNextWrite() {
		RetryCluster cluster = replica(new FakeClusterEngine(this.store), "a");
		RetryTemplate payments = registry(cluster).template("payments");
		this.store.contexts.put("payments/k", new byte[] { 1 });

		failOnce(payments, "k");

		assertThat(storedCount("payments", "k")).isEqualTo(1);
		assertThat(cluster.status().undecodableEntries()).isEqualTo(1);
		assertThat(cluster.status().reachable()).isTrue();
		assertThat(cluster.status().fallbacks()).isZero();
		assertThat(payments.getContextCache().entries(10)).hasSize(1);
	}

	@Test
	void anEntryWhoseAttributesCannotBeDecodedKeepsItsCount() {
		RetryCluster cluster = replica(new FakeClusterEngine(this.store), "a");
		RetryTemplate payments = registry(cluster).template("payments");
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of(Unknown.class.getName()));
		this.store.contexts.put("payments/k", allowing.encode(RetryContextSnapshot.of("payments", 1, false,
				IOException.class.getName(), "broken", 1L, Map.of("order", new Unknown()))));

		assertThat(countSeen(payments, "k")).isEqualTo(1);
		assertThat(cluster.status().withheldAttributes()).isEqualTo(1);
		assertThat(cluster.status().undecodableEntries()).isZero();
	}

	@Test
	void anAttributeThatCannotBeSerializedStaysBehindAndTheCountIsStillShared() {
		RetryCluster cluster = replica(new FakeClusterEngine(this.store), "a");
		RetryTemplate payments = registry(cluster).template("payments");

		assertThatExceptionOfType(IOException.class).isThrownBy(() -> payments.execute(context -> {
			context.setAttribute("listeners", new Holder[] { new Holder(new Object()) });
			context.setAttribute("order", "o-1");
			throw new IOException("broken");
		}, RetryState.of("k")));

		assertThat(storedCount("payments", "k")).isEqualTo(1);
		ClusterStatus status = cluster.status();
		assertThat(status.reachable()).isTrue();
		assertThat(status.fallbacks()).isZero();
		assertThat(status.withheldAttributes()).isEqualTo(1);
	}

	@Test
	void aCallerInterruptedWhileItWaitsForTheEngineKeepsItsInterruptAndTheEngineStaysReachable() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryCluster cluster = replica(engine, "a");
		RetryTemplate payments = registry(cluster).template("payments");
		Thread.currentThread().interrupt();
		try {
			failOnce(payments, "k");
			assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt flag").isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(storedCount("payments", "k")).isEqualTo(1);
		assertThat(cluster.status().reachable()).isTrue();
		assertThat(cluster.status().fallbacks()).isZero();
	}

	@Test
	void notRecoverableIsDecidedByTheRecordedTypeOnTheClusterCacheAsInMemory() {
		RetryTemplate onA = registry(replica(new FakeClusterEngine(this.store), "a")).template("payments");
		RetryTemplate onB = registry(replica(new FakeClusterEngine(this.store), "b")).template("payments");
		RetryState state = RetryState.of("order-1");
		for (int i = 0; i < 3; i++) {
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> onA.execute(context -> {
				throw new IllegalStateException("declined");
			}, state));
		}

		assertThatExceptionOfType(ExhaustedRetryException.class).isThrownBy(() -> onB.execute(
				(RetryCallback<String, RuntimeException>) context -> "never run", context -> "recovered", state));
	}

	@Test
	void aLiveChangeOfABudgetOrABreakerKeepsItShared() {
		RetryCluster cluster = replica(new FakeClusterEngine(this.store), "a");
		RetryRegistry registry = registry(cluster);
		RetryBudget before = registry.template("pricing").getBudget();
		assertThat(cluster.isShared(before)).isTrue();

		registry.replace("pricing", RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.none())
			.budget(RetryBudgetConfig.builder().tokenRatio(0.5).build(), "shop")
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()).build());
		registry.replace("payments", RetryConfig.builder().maxAttempts(3).backoff(BackoffPolicy.none())
			.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()).build());

		RetryBudget after = registry.template("pricing").getBudget();
		assertThat(after).isNotSameAs(before);
		assertThat(cluster.isShared(after)).isTrue();
		assertThat(cluster.isShared(before)).as("the replaced budget is detached").isFalse();
		assertThat(cluster.isShared(registry.template("pricing").getCircuitBreaker())).isTrue();
	}

	@Test
	void malformedOversizedAndUnknownCircuitMessagesAreDroppedAndCounted() {
		RetryCluster cluster = replica(new FakeClusterEngine(this.store), "a");
		CircuitBreaker pricing = registry(cluster).template("pricing").getCircuitBreaker();

		this.store.deliver("FORCE_OPEN|x|nobody", "member-9");
		this.store.deliver("garbage\u001b[31m", "member-9");
		this.store.deliver("FORCE_OPEN|x|" + "p".repeat(1000), "member-9");
		this.store.deliver(null, "member-9");

		assertThat(cluster.status().droppedSignals()).isEqualTo(4);
		assertThat(pricing.getState()).isEqualTo(CircuitState.CLOSED);
		this.store.deliver("FORCE_OPEN|x|pricing", "member-9");
		assertThat(pricing.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void aQuorumCountsDistinctMembersNotTheReplicaIdsASenderClaims() {
		RetryCluster cluster = replica(new FakeClusterEngine(this.store), "a");
		CircuitBreaker orders = registry(cluster).template("orders").getCircuitBreaker();

		this.store.deliver("TRIP|forged-1|orders", "member-9");
		this.store.deliver("TRIP|forged-2|orders", "member-9");
		assertThat(orders.getState()).as("two ids, one member").isEqualTo(CircuitState.CLOSED);

		this.store.deliver("TRIP|forged-3|orders", "member-8");
		assertThat(orders.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void aReplicaThatJoinsLaterLearnsAForcedOpenCircuit() throws InterruptedException {
		CircuitBreaker onA = registry(replica(new FakeClusterEngine(this.store), "a")).template("pricing").getCircuitBreaker();
		CountDownLatch stored = new CountDownLatch(1);
		this.store.subscribers.add(new FakeClusterEngine.Subscription((message, sender) -> stored.countDown()));
		onA.forceOpen();
		assertThat(stored.await(5, TimeUnit.SECONDS)).isTrue();

		CircuitBreaker onB = registry(replica(new FakeClusterEngine(this.store), "b")).template("pricing").getCircuitBreaker();

		assertThat(onB.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(onB.isForcedOpen()).isTrue();
	}

	@Test
	void aManualTransitionMadeWhileTheEngineIsUnreachableIsSentWhenItIsBack() throws InterruptedException {
		FakeClusterEngine engineA = new FakeClusterEngine(this.store);
		RetryCluster a = replica(engineA, "a");
		CircuitBreaker onA = registry(a).template("pricing").getCircuitBreaker();
		engineA.down = true;
		a.synchronise();
		onA.forceOpen();
		assertThat(this.store.circuitStates).isEmpty();

		CountDownLatch sent = new CountDownLatch(1);
		this.store.subscribers.add(new FakeClusterEngine.Subscription((message, sender) -> sent.countDown()));
		engineA.down = false;
		a.synchronise();
		assertThat(sent.await(5, TimeUnit.SECONDS)).isTrue();

		CircuitBreaker onB = registry(replica(new FakeClusterEngine(this.store), "b")).template("pricing").getCircuitBreaker();
		assertThat(onB.isForcedOpen()).isTrue();
	}

	@Test
	void whatAReplicaDidDuringAFallbackIsWrittenBackWhenTheEngineAnswersAgain() {
		FakeClusterEngine engineA = new FakeClusterEngine(this.store);
		RetryCluster a = replica(engineA, "a");
		RetryTemplate onA = registry(a).template("payments");
		failOnce(onA, "order-1");
		failOnce(onA, "order-2");
		assertThat(storedCount("payments", "order-1")).isEqualTo(1);

		engineA.down = true;
		assertThat(countSeen(onA, "order-1")).as("succeeds on local state").isZero();
		failOnce(onA, "order-2");
		failOnce(onA, "order-3");
		assertThat(a.status().pendingWriteBacks()).isEqualTo(3);

		engineA.down = false;
		a.synchronise();

		assertThat(this.store.contexts).as("the success on local state removed the shared entry")
			.doesNotContainKey("payments/order-1");
		assertThat(storedCount("payments", "order-2")).as("one failure before, one during").isEqualTo(2);
		assertThat(storedCount("payments", "order-3")).isEqualTo(1);
		assertThat(a.status().pendingWriteBacks()).isZero();
		failOnce(onA, "order-1");
		assertThat(storedCount("payments", "order-1")).as("counted from zero again").isEqualTo(1);
	}

	@Test
	void aWriteTheEngineAppliesAfterTheCallGaveUpOnItIsNotCountedAgainWhenWrittenBack() throws InterruptedException {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryCluster cluster = RetryCluster.builder(engine).replicaId("a").timeout(Duration.ofMillis(100))
			.timeSource(this.time).build();
		this.opened.add(cluster);
		RetryTemplate payments = registry(cluster).template("payments");
		failOnce(payments, "k");
		CountDownLatch late = new CountDownLatch(1);
		engine.lateWrites = late;
		failOnce(payments, "k");
		assertThat(cluster.status().pendingWriteBacks()).isEqualTo(1);

		engine.lateWrites = null;
		late.countDown();
		awaitStoredCount("k", 2);
		assertThat(storedCount("payments", "k")).as("the late write applied").isEqualTo(2);
		cluster.synchronise();

		assertThat(storedCount("payments", "k")).as("written back without counting the failure again").isEqualTo(2);
		assertThat(cluster.status().pendingWriteBacks()).isZero();
	}

	@Test
	void aWriteBackTheEngineAppliesLateCountsWhatItCarriedAndTheNextOneOnlyWhatCameSince() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryCluster cluster = RetryCluster.builder(engine).replicaId("a").timeout(Duration.ofMillis(100))
			.timeSource(this.time).build();
		this.opened.add(cluster);
		RetryTemplate payments = registry(cluster).template("payments");
		failOnce(payments, "k");
		engine.down = true;
		failOnce(payments, "k");
		failOnce(payments, "k");
		engine.down = false;
		CountDownLatch late = new CountDownLatch(1);
		// The write-back's compare-and-set is held, so that it lands only after the next failure.
		engine.lateWrites = late;
		cluster.synchronise();
		assertThat(cluster.status().pendingWriteBacks()).as("the write-back was not answered").isEqualTo(1);
		engine.down = true;
		failOnce(payments, "k");
		engine.down = false;
		engine.lateWrites = null;

		late.countDown();
		awaitStoredCount("k", 3);
		assertThat(storedCount("payments", "k")).as("the late write-back: 1 shared and the 2 it carried").isEqualTo(3);
		cluster.synchronise();

		assertThat(storedCount("payments", "k")).as("one failure before, three during").isEqualTo(4);
		assertThat(cluster.status().pendingWriteBacks()).isZero();
	}

	@Test
	void aFailureCountedLocallyAfterTheSharedCountWasReadIsWrittenBackOnce() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryCluster cluster = replica(engine, "a");
		RetryTemplate payments = registry(cluster).template("payments");
		failOnce(payments, "k");
		engine.writesDown = true;
		failOnce(payments, "k");
		engine.writesDown = false;

		cluster.synchronise();

		assertThat(storedCount("payments", "k")).as("one failure before, one read from it and counted locally").isEqualTo(2);
	}

	@Test
	void aFailingStatefulCallReadsItsEntryOnceAndWritesItWithOneCompareAndSet() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryTemplate payments = registry(replica(engine, "a")).template("payments");
		failOnce(payments, "k");
		engine.reads.set(0);
		engine.writes.set(0);

		failOnce(payments, "k");

		assertThat(engine.reads).as("reads").hasValue(1);
		assertThat(engine.writes).as("compare-and-sets").hasValue(1);
		assertThat(storedCount("payments", "k")).isEqualTo(2);
	}

	@Test
	void clearingTellsWhetherTheSharedContextsWereClearedAndDropsWhatWaitedToBeWrittenBack() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryCluster cluster = replica(engine, "a");
		RetryTemplate payments = registry(cluster).template("payments");
		failOnce(payments, "k");
		engine.down = true;
		failOnce(payments, "j");
		assertThat(payments.getContextCache().tryClear()).as("the engine is down").isFalse();
		assertThat(cluster.status().pendingWriteBacks()).isZero();

		engine.down = false;
		cluster.synchronise();
		assertThat(this.store.contexts).containsOnlyKeys("payments/k");
		assertThat(payments.getContextCache().tryClear()).isTrue();
		assertThat(this.store.contexts).isEmpty();
	}

	@Test
	void aFleetOfAHundredReplicasRetriesNoMoreThanPerReplicaBucketsAtAnOutagesOnsetAndStopsTogetherAtTheNextExchange() {
		long[] cluster = { RetryBudgetConfig.DEFAULT_MAX_TOKENS * 1000L };
		LongUnaryOperator exchange = delta -> cluster[0] = Math.max(0, Math.min(10_000, cluster[0] + delta));
		List<RetryBudget> budgets = new ArrayList<>();
		SplittableRandom random = new SplittableRandom(7);
		for (int i = 0; i < 100; i++) {
			RetryBudget budget = RetryBudget.create("shop", RetryBudgetConfig.ofDefaults());
			budget.synchronise(exchange, 100, random);
			budgets.add(budget);
		}
		RetryBudget perReplica = RetryBudget.create("own", RetryBudgetConfig.ofDefaults());
		int perReplicaRetries = retriesOfOneFailingCall(perReplica);
		int retries = 0;
		for (RetryBudget budget : budgets) {
			retries += retriesOfOneFailingCall(budget);
		}
		// Before any exchange a replica cannot tell the onset of an outage from an isolated failure: each
		// may spend what a bucket of its own would (issue 38), never more.
		assertThat(retries).isEqualTo(100 * perReplicaRetries);
		budgets.forEach(budget -> budget.synchronise(exchange, 100, random));
		int after = 0;
		for (RetryBudget budget : budgets) {
			after += retriesOfOneFailingCall(budget);
		}
		assertThat(cluster[0]).isZero();
		assertThat(after).as("retries once every replica has exchanged its failures").isZero();
	}

	/** A call whose every attempt fails, retried while the budget allows: how many retries it made. */
	private static int retriesOfOneFailingCall(RetryBudget budget) {
		int retries = 0;
		budget.onFailure();
		while (budget.tryAcquireRetry()) {
			retries++;
			budget.onFailure();
		}
		return retries;
	}

	@Test
	void inASmallFleetEveryReplicaMayRetryAnIsolatedFailureAfterEachExchange() {
		long[] cluster = { RetryBudgetConfig.DEFAULT_MAX_TOKENS * 1000L };
		SplittableRandom random = new SplittableRandom(7);
		for (int exchange = 0; exchange < 20; exchange++) {
			for (int replica = 0; replica < 5; replica++) {
				RetryBudget budget = RetryBudget.create("shop", RetryBudgetConfig.ofDefaults());
				budget.synchronise(delta -> cluster[0] = Math.max(0, Math.min(10_000, cluster[0] + delta)), 5, random);
				budget.onFailure();
				assertThat(budget.tryAcquireRetry()).as("replica " + replica + " after exchange " + exchange).isTrue();
				cluster[0] = 10_000;
			}
		}
	}

	/** A class of the application that another replica allowed and this one does not have a reason to trust. */
	static final class Unknown implements Serializable {

		private static final long serialVersionUID = 1L;

	}

	/** Declares Serializable, holds what is not. */
	record Holder(Object held) implements Serializable {
	}

}
