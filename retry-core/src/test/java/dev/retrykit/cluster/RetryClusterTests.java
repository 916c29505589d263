package dev.retrykit.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RetryCallback;
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
import dev.retrykit.spi.RetryContextSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RetryClusterTests {

	private final FakeClusterEngine.Store store = new FakeClusterEngine.Store();

	private final VirtualTime time = new VirtualTime();

	private final List<RetryCluster> opened = new java.util.ArrayList<>();

	@AfterEach
	void close() {
		this.opened.forEach(RetryCluster::close);
	}

	private RetryCluster replica(FakeClusterEngine engine, String id) {
		RetryCluster cluster = RetryCluster.builder(engine).replicaId(id).timeout(Duration.ofMillis(200))
			.timeSource(this.time).clusterBudget("shop").clusterCircuit("inventory", 1).clusterCircuit("orders", 2)
			.build();
		this.opened.add(cluster);
		return cluster;
	}

	private RetryRegistry registry(RetryCluster cluster) {
		RetryRegistry registry = cluster.bind(RetryRegistry.builder().virtualTime(this.time))
			.instance("inventory", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.ofDefaults(), "shop")
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.instance("orders", null, config -> config.maxAttempts(-1).backoff(BackoffPolicy.none())
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.instance("stateful", null, config -> config.maxAttempts(-1).backoff(BackoffPolicy.none()))
			.build();
		cluster.attach(registry);
		return registry;
	}

	@Test
	void bindAloneSharesBudgetsAndCircuitsAsWellAsContexts() {
		RetryCluster cluster = replica(new FakeClusterEngine(this.store), "a");
		RetryRegistry registry = cluster.bind(RetryRegistry.builder().virtualTime(this.time))
			.instance("inventory", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.budget(RetryBudgetConfig.ofDefaults(), "shop")
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.build();
		assertThat(cluster.isShared(registry.template("inventory").getBudget())).isTrue();
		assertThat(cluster.isShared(registry.template("inventory").getCircuitBreaker())).isTrue();
		// An instance created after the registry was built is shared too.
		RetryRegistry later = cluster.bind(RetryRegistry.builder().virtualTime(this.time)).build();
		later.replace("orders", dev.retrykit.RetryConfig.builder().maxAttempts(2)
			.circuitBreaker(CircuitBreakerConfig.builder().build()).build());
		assertThat(cluster.isShared(later.template("orders").getCircuitBreaker())).isTrue();
		// attach after bind changes nothing: everything is shared once.
		cluster.attach(registry);
		assertThat(cluster.isShared(registry.template("inventory").getBudget())).isTrue();
	}

	@Test
	void whenOneReplicaDrainsASharedBudgetTheOthersStopRetryingAfterTheNextSynchronisation() {
		RetryCluster a = replica(new FakeClusterEngine(this.store), "a");
		RetryCluster b = replica(new FakeClusterEngine(this.store), "b");
		RetryBudget budgetA = registry(a).template("inventory").getBudget();
		RetryBudget budgetB = registry(b).template("inventory").getBudget();
		for (int i = 0; i < 6; i++) {
			budgetA.onFailure();
		}
		assertThat(budgetB.tryAcquireRetry()).isTrue();
		a.synchronise();
		b.synchronise();
		assertThat(budgetB.getTokens()).isEqualTo(4.0);
		assertThat(budgetB.tryAcquireRetry()).isFalse();
		assertThat(a.isShared(budgetA)).isTrue();
	}

	@Test
	void changesMadeWhileABudgetExchangesAreHandedOverNextTime() {
		RetryBudget budget = RetryBudget.create("shop", RetryBudgetConfig.ofDefaults());
		budget.onFailure();
		budget.onFailure();
		long[] deltas = new long[2];
		budget.synchronise(delta -> {
			deltas[0] = delta;
			budget.onFailure();
			return 10_000 + delta - 3_000;
		});
		assertThat(deltas[0]).isEqualTo(-2_000);
		assertThat(budget.getTokens()).isEqualTo(4.0);
		budget.synchronise(delta -> {
			deltas[1] = delta;
			return 5_000 + delta;
		});
		assertThat(deltas[1]).isEqualTo(-1_000);
		assertThat(budget.getTokens()).isEqualTo(4.0);
	}

	@Test
	void failuresOfAnEmptyLocalViewAreStillHandedToTheCluster() {
		RetryBudget budget = RetryBudget.create("shop", RetryBudgetConfig.ofDefaults());
		budget.synchronise(delta -> 0);
		assertThat(budget.getTokens()).isZero();
		for (int i = 0; i < 3; i++) {
			budget.onFailure();
		}
		for (int i = 0; i < 10; i++) {
			budget.onSuccess();
		}
		long[] handed = new long[1];
		budget.synchronise(delta -> {
			handed[0] = delta;
			return 4_000 + delta;
		});
		// Clamping each replica's view at zero must not turn an outage into a gain for the cluster.
		assertThat(handed[0]).isEqualTo(-2_000);
		assertThat(budget.getTokens()).isEqualTo(2.0);
	}

	@Test
	void whenTheExchangeFailsTheChangeIsKeptForTheNextOne() {
		RetryBudget budget = RetryBudget.create("shop", RetryBudgetConfig.ofDefaults());
		budget.onFailure();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> budget.synchronise(delta -> {
			throw new IllegalStateException("down");
		}));
		long[] seen = new long[1];
		budget.synchronise(delta -> {
			seen[0] = delta;
			return 10_000 + delta;
		});
		assertThat(seen[0]).isEqualTo(-1_000);
	}

	@Test
	void openingACircuitByHandOnOneReplicaOpensItOnTheOthersAndClosingClosesThem() throws InterruptedException {
		RetryCluster a = replica(new FakeClusterEngine(this.store), "a");
		RetryCluster b = replica(new FakeClusterEngine(this.store), "b");
		CircuitBreaker breakerA = registry(a).template("inventory").getCircuitBreaker();
		CircuitBreaker breakerB = registry(b).template("inventory").getCircuitBreaker();
		CountDownLatch opened = awaitState(breakerB, CircuitState.OPEN);
		breakerA.forceOpen();
		assertThat(opened.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(breakerB.isForcedOpen()).isTrue();
		CountDownLatch closed = awaitState(breakerB, CircuitState.CLOSED);
		breakerA.close();
		assertThat(closed.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(breakerA.getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void aTripOnOneReplicaOpensTheOthersWithAQuorumOfOne() throws InterruptedException {
		RetryCluster a = replica(new FakeClusterEngine(this.store), "a");
		RetryCluster b = replica(new FakeClusterEngine(this.store), "b");
		CircuitBreaker breakerA = registry(a).template("inventory").getCircuitBreaker();
		CircuitBreaker breakerB = registry(b).template("inventory").getCircuitBreaker();
		CountDownLatch opened = awaitState(breakerB, CircuitState.OPEN);
		fail(breakerA);
		fail(breakerA);
		assertThat(opened.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(breakerB.isForcedOpen()).isFalse();
		this.time.advance(CircuitBreakerConfig.DEFAULT_TIMEOUT);
		assertThat(breakerB.getState()).isEqualTo(CircuitState.HALF_OPEN);
	}

	@Test
	void withAQuorumOfTwoOneTripOpensOnlyItsReplicaAndASecondOpensAll() throws InterruptedException {
		RetryCluster a = replica(new FakeClusterEngine(this.store), "a");
		RetryCluster b = replica(new FakeClusterEngine(this.store), "b");
		RetryCluster c = replica(new FakeClusterEngine(this.store), "c");
		CircuitBreaker breakerA = registry(a).template("orders").getCircuitBreaker();
		CircuitBreaker breakerB = registry(b).template("orders").getCircuitBreaker();
		CircuitBreaker breakerC = registry(c).template("orders").getCircuitBreaker();
		CountDownLatch cOpened = awaitState(breakerC, CircuitState.OPEN);
		CountDownLatch bSawOne = new CountDownLatch(1);
		this.store.subscribers.add(new FakeClusterEngine.Subscription((message, sender) -> bSawOne.countDown()));
		fail(breakerA);
		fail(breakerA);
		assertThat(bSawOne.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(breakerB.getState()).isEqualTo(CircuitState.CLOSED);
		assertThat(breakerC.getState()).isEqualTo(CircuitState.CLOSED);
		fail(breakerB);
		fail(breakerB);
		assertThat(cOpened.await(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aStatefulCountContinuesOnAnotherReplicaAndThePoisonMessageIsExhaustedThere() {
		RetryTemplate onA = registry(replica(new FakeClusterEngine(this.store), "a")).template("inventory");
		RetryTemplate onB = registry(replica(new FakeClusterEngine(this.store), "b")).template("inventory");
		RetryState state = RetryState.of("message-1");
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> onA.execute(context -> {
			throw new IOException("broken");
		}, state));
		int[] countSeen = new int[1];
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> onB.execute(context -> {
			countSeen[0] = context.getRetryCount();
			throw new IOException("broken");
		}, state));
		assertThat(countSeen[0]).isEqualTo(1);
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> onA.execute(context -> {
			throw new IOException("broken again");
		}, state));
		assertThatExceptionOfType(ExhaustedRetryException.class)
			.isThrownBy(() -> onB.execute((RetryCallback<String, RuntimeException>) context -> "never run", state))
			.havingCause()
			.isInstanceOfSatisfying(RetryContextSnapshot.RecordedFailure.class,
					failure -> assertThat(failure.getType()).isEqualTo(IOException.class.getName()));
		assertThat(onA.getContextCache().size()).isZero();
	}

	@Test
	void anUnreachableEngineFallsBackToLocalStateCountsItAndRejoins() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryCluster cluster = replica(engine, "a");
		RetryTemplate template = registry(cluster).template("inventory");
		engine.down = true;
		RetryState state = RetryState.of("m");
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("broken");
		}, state));
		assertThat(template.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(), state)).isEqualTo(1);
		ClusterStatus down = cluster.status();
		assertThat(down.reachable()).isFalse();
		assertThat(down.fallbacks()).isPositive();
		engine.down = false;
		cluster.synchronise();
		assertThat(cluster.status()).satisfies(status -> {
			assertThat(status.reachable()).isTrue();
			assertThat(status.members()).isEqualTo(1);
			assertThat(status.engine()).isEqualTo("fake");
		});
	}

	@Test
	void anEngineSlowerThanTheTimeoutDelaysACallNoLongerThanTheTimeout() {
		FakeClusterEngine engine = new FakeClusterEngine(this.store);
		RetryCluster cluster = replica(engine, "a");
		RetryTemplate template = registry(cluster).template("inventory");
		engine.hang = new CountDownLatch(1);
		try {
			long start = System.nanoTime();
			assertThat(template.execute((RetryCallback<String, RuntimeException>) context -> "done", RetryState.of("m"))).isEqualTo("done");
			// get and remove each wait at most the 200 ms timeout; after the first the engine is unreachable.
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(cluster.status().reachable()).isFalse();
		}
		finally {
			engine.hang.countDown();
		}
	}

	@Test
	void concurrentRedeliveriesOfTheSameKeysOnThreeReplicasLoseNoFailureAndCountNoneTwice() throws Exception {
		List<RetryCluster> clusters = List.of(replica(new FakeClusterEngine(this.store), "a"),
				replica(new FakeClusterEngine(this.store), "b"), replica(new FakeClusterEngine(this.store), "c"));
		List<RetryTemplate> replicas = clusters.stream().map(cluster -> registry(cluster).template("stateful")).toList();
		int threads = 8;
		int deliveries = 300;
		int keys = 5;
		java.util.concurrent.atomic.AtomicIntegerArray delivered = new java.util.concurrent.atomic.AtomicIntegerArray(keys);
		java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
		java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
		List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			done.add(pool.submit(() -> {
				start.await();
				for (int i = 0; i < deliveries; i++) {
					int key = (thread + i) % keys;
					delivered.incrementAndGet(key);
					try {
						replicas.get((thread + i) % 3).execute(context -> {
							throw new IOException("poison");
						}, RetryState.of("key-" + key));
					}
					catch (IOException expected) {
						// every delivery fails and rolls back
					}
				}
				return null;
			}));
		}
		for (java.util.concurrent.Future<?> future : done) {
			future.get(60, TimeUnit.SECONDS);
		}
		pool.shutdown();
		// A write slower than the timeout on a loaded machine falls back to local state: written back here.
		clusters.forEach(RetryCluster::synchronise);
		FakeClusterEngine reader = new FakeClusterEngine(this.store);
		for (int key = 0; key < keys; key++) {
			assertThat(SnapshotCodec.jdkValuesOnly().decode(reader.getContext("stateful", "key-" + key)).getRetryCount()).as("failures of key-" + key)
				.isEqualTo(delivered.get(key));
		}
		assertThat(java.util.stream.IntStream.range(0, keys).map(delivered::get).sum()).isEqualTo(threads * deliveries);
	}

	@Test
	void aQuorumBelowOneIsRefusedWithTheRule() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryCluster.builder(new FakeClusterEngine(this.store)).clusterCircuit("inventory", 0))
			.withMessage("Invalid quorum (0) of circuit 'inventory': must be 1 or greater");
	}

	private static CountDownLatch awaitState(CircuitBreaker breaker, CircuitState state) {
		CountDownLatch latch = new CountDownLatch(1);
		breaker.addStateListener((b, from, to) -> {
			if (to == state) {
				latch.countDown();
			}
		});
		return latch;
	}

	/** A failed call through the breaker, as an attempt that failed records it. */
	private static void fail(CircuitBreaker breaker) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> breaker.execute(() -> {
			throw new IOException("downstream broken");
		}));
	}

}
