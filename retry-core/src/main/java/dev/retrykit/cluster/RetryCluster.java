package dev.retrykit.cluster;

import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryRegistryBuilder;
import dev.retrykit.RetryTemplate;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.spi.CircuitSignal;
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
 * cluster.attach(registry);
 * cluster.start();
 * }</pre>
 *
 * <p>Hot paths stay local: a budget decides on the cluster's tokens as last synchronised plus this
 * replica's changes since, and {@link #synchronise()} (every {@code syncInterval} once started)
 * exchanges the changes; a breaker sends its transitions without waiting. A stateful call reads and
 * writes its entry once, waiting at most {@code timeout} each time. When the engine is unreachable or
 * slower than the timeout, the replica goes on with local state, counts a fallback and reports
 * {@code reachable=false} until a synchronisation reaches the engine again. Thread-safe.
 */
public final class RetryCluster implements AutoCloseable {

	private static final System.Logger LOGGER = System.getLogger(RetryCluster.class.getName());

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final String replicaId;

	private final TimeSource timeSource;

	private final long syncIntervalNanos;

	private final int contextCacheCapacity;

	private final Set<String> clusterBudgets;

	private final Map<String, Integer> clusterCircuits;

	private final List<RetryBudget> budgets = new CopyOnWriteArrayList<>();

	private final Map<CircuitBreaker, SharedCircuit> circuits = Collections.synchronizedMap(new IdentityHashMap<>());

	private final Map<String, SharedCircuit> circuitsByName = new ConcurrentHashMap<>();

	private volatile int members = -1;

	private @Nullable AutoCloseable subscription;

	private @Nullable ScheduledExecutorService syncThread;

	RetryCluster(RetryClusterBuilder builder) {
		this.engine = builder.engine;
		this.calls = new EngineCalls(builder.timeout.toNanos());
		this.replicaId = builder.replicaId;
		this.timeSource = builder.timeSource;
		this.syncIntervalNanos = builder.syncInterval.toNanos();
		this.contextCacheCapacity = builder.contextCacheCapacity;
		this.clusterBudgets = Set.copyOf(builder.clusterBudgets);
		this.clusterCircuits = Map.copyOf(builder.clusterCircuits);
	}

	/**
	 * @param engine the engine that shares the state
	 * @return a builder with a timeout and sync interval of 100ms
	 */
	public static RetryClusterBuilder builder(ClusterEngine engine) {
		return new RetryClusterBuilder(engine);
	}

	/**
	 * Makes every instance of the registry keep its stateful contexts in the cluster.
	 * @param builder the registry's builder
	 * @return that builder
	 */
	public RetryRegistryBuilder bind(RetryRegistryBuilder builder) {
		return builder.contextCacheFactory(this::contextCache);
	}

	/**
	 * The shared context cache of an instance.
	 * @param instance the instance name
	 * @return a cache that stores snapshots in the engine
	 */
	public RetryContextCache contextCache(String instance) {
		return new ClusterContextCache(instance, this.engine, this.calls, this.contextCacheCapacity, this.timeSource);
	}

	/**
	 * Shares the cluster-scoped budgets and breakers of the registry's instances, those that exist and
	 * those created later.
	 * @param registry the registry
	 */
	public void attach(RetryRegistry registry) {
		registry.addListener(this::attach);
	}

	private void attach(RetryTemplate template) {
		RetryBudget budget = template.getBudget();
		if (budget != null && this.clusterBudgets.contains(budget.getName()) && !this.budgets.contains(budget)) {
			this.budgets.add(budget);
		}
		CircuitBreaker breaker = template.getCircuitBreaker();
		Integer quorum = this.clusterCircuits.get(template.getName());
		if (breaker != null && quorum != null) {
			attach(breaker, quorum);
		}
	}

	/**
	 * Shares a circuit breaker: its manual and tripped openings and manual closings reach the other
	 * replicas' breakers of the same name, and theirs reach it.
	 * @param breaker the breaker
	 * @param quorum how many replicas must trip within the open timeout before all open, 1 or more
	 * @throws IllegalArgumentException if {@code quorum} is less than 1
	 */
	public void attach(CircuitBreaker breaker, int quorum) {
		if (quorum < 1) {
			throw new IllegalArgumentException("Invalid quorum (" + quorum + "): must be 1 or greater");
		}
		synchronized (this.circuits) {
			if (this.circuits.containsKey(breaker)) {
				return;
			}
			SharedCircuit shared = new SharedCircuit(breaker, quorum, this.replicaId, this.engine, this.calls,
					this.timeSource);
			this.circuits.put(breaker, shared);
			this.circuitsByName.put(breaker.getName(), shared);
			breaker.addStateListener(shared);
			subscribe();
		}
	}

	private void subscribe() {
		if (this.subscription == null) {
			this.subscription = this.calls.probe(() -> this.engine.subscribeCircuits(this::receive), () -> null);
		}
	}

	private void receive(CircuitSignal signal) {
		SharedCircuit shared = this.circuitsByName.get(signal.circuit());
		if (shared != null) {
			shared.receive(signal);
		}
	}

	/**
	 * Shares a retry budget: from now on {@link #synchronise()} exchanges its changes.
	 * @param budget the budget
	 */
	public void attach(RetryBudget budget) {
		if (!this.budgets.contains(budget)) {
			this.budgets.add(budget);
		}
	}

	/**
	 * @param budget a budget
	 * @return whether it is shared by the replicas
	 */
	public boolean isShared(RetryBudget budget) {
		return this.budgets.contains(budget);
	}

	/**
	 * @param breaker a breaker
	 * @return whether it is shared by the replicas
	 */
	public boolean isShared(CircuitBreaker breaker) {
		return this.circuits.containsKey(breaker);
	}

	/**
	 * Checks that the engine is reachable (rejoining it if it was not) and exchanges every shared
	 * budget's changes with it. Waits at most the timeout per operation; never throws.
	 */
	public void synchronise() {
		int seen = this.calls.probe(this.engine::members, () -> -1);
		if (seen < 0) {
			return;
		}
		this.members = seen;
		synchronized (this.circuits) {
			if (!this.circuits.isEmpty()) {
				subscribe();
			}
		}
		for (RetryBudget budget : this.budgets) {
			long max = budget.getMaxTokens() * 1000L;
			this.calls.call(() -> {
				budget.synchronise(delta -> this.engine.exchangeBudget(budget.getName(), delta, max));
				return true;
			}, () -> false);
		}
	}

	/** @return the engine's name, members, reach and fallbacks; reaches the engine only if never reached yet */
	public ClusterStatus status() {
		if (this.members < 0) {
			int seen = this.calls.call(this.engine::members, () -> -1);
			if (seen >= 0) {
				this.members = seen;
			}
		}
		return new ClusterStatus(this.engine.engineName(), Math.max(0, this.members), this.calls.isReachable(),
				this.calls.fallbacks());
	}

	/** @return this replica's id */
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
		AutoCloseable open = this.subscription;
		if (open != null) {
			try {
				open.close();
			}
			catch (Exception ex) {
				LOGGER.log(Level.DEBUG, "Closing the circuit subscription failed", ex);
			}
		}
		this.calls.close();
	}

	@Override
	public String toString() {
		return "RetryCluster[replica=" + this.replicaId + ", " + status() + ", budgets=" + this.clusterBudgets
				+ ", circuits=" + this.clusterCircuits + "]";
	}

}
