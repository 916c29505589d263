package dev.retrykit.cluster;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryRegistryBuilder;
import dev.retrykit.RetryRegistryListener;
import dev.retrykit.RetryTemplate;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Shares a service's retry state among its replicas through a {@link ClusterEngine}: the stateful
 * contexts of every instance, the retry budgets and circuit breakers declared cluster-scoped.
 *
 * <pre>{@code
 * RetryCluster cluster = RetryCluster.builder(new HazelcastClusterEngine(hazelcast, "retrykit"))
 *     .clusterBudget("shop-downstream").clusterCircuit("inventory", 1).build();
 * RetryRegistry registry = cluster.bind(RetryRegistry.builder()).build();
 * cluster.start();
 * }</pre>
 *
 * <p>Hot paths stay local: a token bucket decides on its own tokens and on the cluster's as last
 * synchronised plus this replica's changes since, a ratio budget on its own calls and its part of the
 * fleet's reserve, and {@link #synchronise()} (every {@code syncInterval} once started) exchanges the
 * changes and the replica count; a breaker sends its transitions without waiting. A stateful call reads and
 * writes its entry once, waiting at most {@code timeout} each time. When the engine is unreachable or
 * slower than the timeout, the replica goes on with local state, counts a fallback and reports
 * {@code reachable=false} until a synchronisation reaches the engine again; then the changes it made
 * to stateful contexts meanwhile are written back, manual circuit transitions it could not send are
 * sent, and the manual circuit states kept in the engine are applied. The log tells each spell of
 * unreachability in two lines: a warning when it begins, and when the engine has answered everything for a
 * second (at least two sync intervals), how long it was away and what was written back. What the replica
 * shows meanwhile says where it came from ({@link #read}, {@link #isReachable()}, {@link #unansweredFor()}).
 *
 * <p>Trust: everything read from the engine may have been written by anything that can reach it.
 * Contexts are decoded with a {@link SnapshotCodec} that creates only allowed classes, and an entry
 * that cannot be decoded is treated as absent and counted (never as a failure of the engine); a
 * stateful key whose string form is longer than 1,024 bytes in UTF-8 (or starts with {@code sha256:})
 * is shared as {@code sha256:} and the hex SHA-256 of those bytes; a circuit message that is malformed or
 * names a circuit this replica does not share, or that the engine cannot attribute to a registered
 * member, is dropped and counted; quorums count the registered members that sent trips as the engine
 * identifies them. The cluster follows {@link RetryRegistry#replace}: a budget
 * or breaker that a live change replaces is no longer shared, its successor is. Thread-safe.
 */
public final class RetryCluster implements AutoCloseable {

	private static final System.Logger LOGGER = System.getLogger(RetryCluster.class.getName());

	/**
	 * How long the engine must answer everything before a spell of unreachability ends (and is logged as over),
	 * at least two sync intervals: a busy machine whose operations now and then miss the timeout logs one spell.
	 */
	private static final long SETTLE_NANOS = 1_000_000_000L;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final String replicaId;

	private final TimeSource timeSource;

	private final long syncIntervalNanos;

	private final int contextCacheCapacity;

	private final SnapshotCodec codec;

	private final ClusterCounters counters;

	private final RandomGenerator random;

	private final List<ClusterContextCache> caches = new CopyOnWriteArrayList<>();

	private final Set<String> clusterBudgets;

	private final Map<String, Integer> clusterCircuits;

	private final List<RetryBudget> budgets = new CopyOnWriteArrayList<>();

	private final SharedCircuits circuits;

	private volatile int members = -1;


	/** Whether a synchronisation has reached the engine yet. */
	private boolean reachedOnce;

	/** Stateful contexts written back since the engine was last unreachable; touched by {@link #synchronise()} only. */
	private int writtenBack;


	private @Nullable ScheduledExecutorService syncThread;

	RetryCluster(RetryClusterBuilder builder) {
		this.engine = builder.engine;
		this.calls = new EngineCalls(builder.timeout.toNanos(), builder.timeSource,
				Math.max(SETTLE_NANOS, 2 * builder.syncInterval.toNanos()));
		this.replicaId = builder.replicaId;
		this.timeSource = builder.timeSource;
		this.syncIntervalNanos = builder.syncInterval.toNanos();
		this.contextCacheCapacity = builder.contextCacheCapacity;
		this.codec = SnapshotCodec.allowing(builder.allowedAttributes);
		this.counters = new ClusterCounters(builder.timeSource);
		this.random = builder.random;
		this.clusterBudgets = Set.copyOf(builder.clusterBudgets);
		this.clusterCircuits = Map.copyOf(builder.clusterCircuits);
		this.circuits = new SharedCircuits(this.engine, this.calls, this.counters, this.replicaId, this.timeSource);
	}

	/**
	 * {@return a builder with a timeout and sync interval of 100ms}
	 * @param engine the engine that shares the state
	 */
	public static RetryClusterBuilder builder(ClusterEngine engine) {
		return new RetryClusterBuilder(engine);
	}

	/**
	 * Shares the registry's state in one step: every instance keeps its stateful contexts in the cluster,
	 * and the cluster-scoped budgets and breakers of its instances, those declared and those created or
	 * replaced later, are shared ({@link #attach(RetryRegistry)} is done by the registry when it is built).
	 * @param builder the registry's builder
	 * @return that builder
	 */
	public RetryRegistryBuilder bind(RetryRegistryBuilder builder) {
		return builder.contextCacheFactory(this::contextCache).registryListener(sharing());
	}

	/**
	 * The shared context cache of an instance.
	 * @param instance the instance name
	 * @return a cache that stores snapshots in the engine
	 */
	public RetryContextCache contextCache(String instance) {
		ClusterContextCache cache = new ClusterContextCache(instance, this.engine, this.calls, this.contextCacheCapacity,
				this.timeSource, this.codec, this.counters);
		this.caches.add(cache);
		return cache;
	}

	/**
	 * Shares the cluster-scoped budgets and breakers of the registry's instances, those that exist and
	 * those created later, and follows their live changes ({@link RetryRegistry#replace}). A registry built
	 * through {@link #bind(RetryRegistryBuilder)} is attached already; attaching again changes nothing.
	 * @param registry the registry
	 */
	public void attach(RetryRegistry registry) {
		registry.addListener(sharing());
	}

	/** Shares the budgets and breakers of the instances it hears of; attaching twice shares them once. */
	private RetryRegistryListener sharing() {
		return new RetryRegistryListener() {

			@Override
			public void onInstanceAdded(RetryTemplate template) {
				attach(template);
			}

			@Override
			public void onInstanceReplaced(RetryTemplate template, RetryConfig previous) {
				replaced(template);
			}

		};
	}

	private void attach(RetryTemplate template) {
		RetryBudget budget = template.getBudget();
		if (budget != null && this.clusterBudgets.contains(budget.getName())) {
			attach(budget);
		}
		CircuitBreaker breaker = template.getCircuitBreaker();
		Integer quorum = this.clusterCircuits.get(template.getName());
		if (breaker != null && quorum != null) {
			attach(breaker, quorum);
		}
	}

	/** A live change may have made a new budget or breaker: share it instead of the one it replaced. */
	private void replaced(RetryTemplate template) {
		RetryBudget budget = template.getBudget();
		if (budget != null) {
			this.budgets.removeIf(shared -> shared != budget && shared.getName().equals(budget.getName()));
		}
		this.circuits.detachReplaced(template.getName(), template.getCircuitBreaker());
		attach(template);
	}

	/**
	 * Shares a circuit breaker: its manual and tripped openings and manual closings reach the other
	 * replicas' breakers of the same name, and theirs reach it.
	 * @param breaker the breaker
	 * @param quorum how many replicas must trip within the open timeout before all open, 1 or more
	 * @throws IllegalArgumentException if {@code quorum} is less than 1
	 */
	public void attach(CircuitBreaker breaker, int quorum) {
		RetryClusterBuilder.atLeastOne("quorum", quorum);
		this.circuits.attach(breaker, quorum);
	}

	/**
	 * Shares a retry budget: from now on {@link #synchronise()} exchanges its changes.
	 * @param budget the budget
	 */
	public void attach(RetryBudget budget) {
		synchronized (this.budgets) {
			if (!this.budgets.contains(budget)) {
				this.budgets.add(budget);
			}
		}
	}

	/**
	 * {@return whether it is shared by the replicas}
	 * @param budget a budget
	 */
	public boolean isShared(RetryBudget budget) {
		return this.budgets.contains(budget);
	}

	/**
	 * {@return whether it is shared by the replicas}
	 * @param breaker a breaker
	 */
	public boolean isShared(CircuitBreaker breaker) {
		return this.circuits.isShared(breaker);
	}

	/**
	 * Checks that the engine is reachable (rejoining it if it was not) and synchronises every shared
	 * budget with it: a token bucket exchanges its changes, a ratio budget takes its part of the fleet's
	 * reserve ({@link RetryBudget#synchronise(java.util.function.LongUnaryOperator, int, RandomGenerator)}).
	 * When the engine answers after it did not (or for the first time), writes back what was changed on
	 * local state meanwhile and reconciles the shared circuits' manual states. Waits at most the timeout
	 * per operation; never throws.
	 */
	public void synchronise() {
		boolean wasReachable = this.calls.isReachable() && this.reachedOnce;
		int seen = this.calls.probe(this.engine::members, () -> -1);
		if (seen < 0) {
			return;
		}
		this.members = seen;
		this.reachedOnce = true;
		this.circuits.resubscribe();
		if (!wasReachable) {
			this.circuits.reconcile();
		}
		// Also when the engine stayed reachable between two synchronisations: a call may have fallen back since.
		int pendingBefore = pendingWriteBacks();
		for (ClusterContextCache cache : this.caches) {
			cache.replay();
		}
		int pendingAfter = pendingWriteBacks();
		this.writtenBack += Math.max(0, pendingBefore - pendingAfter);
		for (RetryBudget budget : this.budgets) {
			long max = budget.getMaxTokens() * 1000L;
			this.calls.call(() -> {
				budget.synchronise(delta -> this.engine.exchangeBudget(budget.getName(), delta, max), seen, this.random);
				return true;
			}, () -> false);
		}
		EngineReach.Spell ended = this.calls.reach().settled(this.writtenBack + " stateful contexts changed meanwhile written back"
				+ ((pendingAfter > 0) ? ", " + pendingAfter + " still to write" : "")
				+ (this.circuits.isEmpty() ? "" : ", shared circuits reconciled with the states kept in the engine"));
		if (ended != null) {
			this.writtenBack = 0;
		}
	}

	private int pendingWriteBacks() {
		int pending = 0;
		for (ClusterContextCache cache : this.caches) {
			pending += cache.pendingReplays();
		}
		return pending;
	}

	/**
	 * {@return the engine's name, members, reach, fallbacks and what was refused; reaches the engine only if
	 * never reached yet}
	 */
	public ClusterStatus status() {
		if (this.members < 0) {
			int seen = this.calls.call(this.engine::members, () -> -1);
			if (seen >= 0) {
				this.members = seen;
			}
		}
		int pending = pendingWriteBacks();
		return new ClusterStatus(this.engine.engineName(), Math.max(0, this.members), this.calls.isReachable(),
				this.calls.fallbacks(), this.counters.undecodableEntries.sum(), this.codec.withheldAttributes(),
				this.counters.droppedSignals.sum(), pending, this.counters.replayDropped.sum());
	}

	/** {@return whether operations try the engine: false from a failure until a synchronisation reaches it again} */
	public boolean isReachable() {
		return this.calls.isReachable();
	}

	/**
	 * {@return how long since the engine last answered, while it is marked unreachable; {@code null} while it is
	 * reachable or before it first answered} What the replica shows of shared state is at least that old.
	 */
	public @Nullable Duration unansweredFor() {
		return this.calls.reach().unansweredFor();
	}

	/**
	 * {@return whether it keeps its contexts in the engine (a cache made by {@link #contextCache})}
	 * @param cache a context cache
	 */
	public boolean isShared(RetryContextCache cache) {
		return cache instanceof ClusterContextCache && this.caches.contains(cache);
	}

	/**
	 * Runs reads of shared state and tells whether the engine answered all of them: none fell back to local
	 * state, and the engine is reachable after them. A read of another thread that fell back meanwhile counts as
	 * well, so the answer errs towards {@code false}.
	 * @param reads the reads (e.g. a context cache's size and entries)
	 * @param <T> what they return
	 * @return what they returned, and where from
	 */
	public <T> SharedRead<T> read(Supplier<T> reads) {
		long before = this.calls.fallbacks();
		boolean reachable = this.calls.isReachable();
		T value = reads.get();
		return new SharedRead<>(value, reachable && this.calls.isReachable() && this.calls.fallbacks() == before);
	}

	/**
	 * What reads of shared state returned, and whether it came from the engine.
	 * @param value what the reads returned
	 * @param fromEngine whether the engine answered every read; {@code false}: some or all of it is this replica's
	 * local state
	 * @param <T> the value's type
	 */
	public record SharedRead<T>(T value, boolean fromEngine) {
	}

	/** {@return this replica's id} */
	public String getReplicaId() {
		return this.replicaId;
	}

	/** Synchronises every {@code syncInterval} on a daemon thread of its own, until {@link #close()}. */
	public synchronized void start() {
		if (this.syncThread == null) {
			this.syncThread = Executors.newSingleThreadScheduledExecutor(task -> {
				Thread thread = new Thread(task, "retrykit-cluster-sync");
				thread.setDaemon(true);
				return thread;
			});
			this.syncThread.scheduleWithFixedDelay(this::synchroniseSafely, 0, this.syncIntervalNanos, TimeUnit.NANOSECONDS);
		}
	}

	private void synchroniseSafely() {
		try {
			synchronise();
		}
		catch (RuntimeException ex) {
			LOGGER.log(Level.WARNING, "Retry cluster synchronisation failed; trying again next interval", ex);
		}
	}

	/** Stops synchronising and unsubscribes; the engine itself is the application's and stays open. */
	@Override
	public synchronized void close() {
		if (this.syncThread != null) {
			this.syncThread.shutdownNow();
		}
		this.circuits.close();
		this.calls.close();
	}

	@Override
	public String toString() {
		return "RetryCluster[replica=" + this.replicaId + ", " + status() + ", budgets=" + this.clusterBudgets
				+ ", circuits=" + this.clusterCircuits + "]";
	}

}
