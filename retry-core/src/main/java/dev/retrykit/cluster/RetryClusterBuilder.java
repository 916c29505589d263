package dev.retrykit.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.random.RandomGenerator;

import dev.retrykit.InMemoryRetryContextCache;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.TimeSource;

/**
 * Builds a {@link RetryCluster}. Each setter validates its value and names the rule it broke. Not
 * thread-safe.
 */
public final class RetryClusterBuilder {

	final ClusterEngine engine;

	Duration timeout = Duration.ofMillis(100);

	Duration syncInterval = Duration.ofMillis(100);

	String replicaId = UUID.randomUUID().toString();

	TimeSource timeSource = TimeSource.SYSTEM;

	int contextCacheCapacity = InMemoryRetryContextCache.DEFAULT_CAPACITY;

	final Set<String> clusterBudgets = new LinkedHashSet<>();

	final List<String> allowedAttributes = new ArrayList<>();

	RandomGenerator random = new SplittableRandom();

	final Map<String, Integer> clusterCircuits = new LinkedHashMap<>();

	RetryClusterBuilder(ClusterEngine engine) {
		this.engine = Objects.requireNonNull(engine, "engine must not be null");
	}

	/**
	 * Sets the longest a call waits for the engine before it uses local state.
	 * @param timeout the longest a call waits for the engine before it uses local state (default 100ms)
	 * @throws IllegalArgumentException if not positive
	 * @return this builder
	 */
	public RetryClusterBuilder timeout(Duration timeout) {
		this.timeout = positive("timeout", timeout);
		return this;
	}

	/**
	 * Sets how often {@link RetryCluster#start()} exchanges budget changes.
	 * @param syncInterval how often {@link RetryCluster#start()} exchanges budget changes (default 100ms)
	 * @throws IllegalArgumentException if not positive
	 * @return this builder
	 */
	public RetryClusterBuilder syncInterval(Duration syncInterval) {
		this.syncInterval = positive("syncInterval", syncInterval);
		return this;
	}

	/**
	 * Sets this replica's id among the others.
	 * @param replicaId this replica's id among the others (default a random UUID)
	 * @throws IllegalArgumentException if blank or containing {@code '|'}
	 * @return this builder
	 */
	public RetryClusterBuilder replicaId(String replicaId) {
		Objects.requireNonNull(replicaId, "replicaId must not be null");
		if (replicaId.isBlank() || replicaId.indexOf('|') >= 0) {
			throw new IllegalArgumentException("Invalid replicaId '" + replicaId + "': must not be blank nor contain '|'");
		}
		this.replicaId = replicaId;
		return this;
	}

	/**
	 * Sets the clock of the quorum window and of cached entries.
	 * @param timeSource the clock of the quorum window and of cached entries (default {@link TimeSource#SYSTEM})
	 * @return this builder
	 */
	public RetryClusterBuilder timeSource(TimeSource timeSource) {
		this.timeSource = Objects.requireNonNull(timeSource, "timeSource must not be null");
		return this;
	}

	/**
	 * Sets the capacity each context cache reports, and of the local cache it uses while the engine is unreachable.
	 * @param capacity the capacity each context cache reports, and of the local cache it uses while the
	 * engine is unreachable (default 4096)
	 * @throws IllegalArgumentException if less than 1
	 * @return this builder
	 */
	public RetryClusterBuilder contextCacheCapacity(int capacity) {
		this.contextCacheCapacity = atLeastOne("context cache capacity", capacity);
		return this;
	}

	/**
	 * Shares a retry budget with the other replicas ({@code budget.scope: cluster}).
	 * @param budgetName the budget's name (its instance's name when the instance names no budget)
	 * @return this builder
	 */
	public RetryClusterBuilder clusterBudget(String budgetName) {
		this.clusterBudgets.add(Objects.requireNonNull(budgetName, "budgetName must not be null"));
		return this;
	}

	/**
	 * Shares an instance's circuit breaker with the other replicas ({@code circuit-breaker.scope: cluster}).
	 * @param instanceName the instance whose breaker it is
	 * @param quorum how many replicas must trip within the open timeout before all open, 1 or more
	 * @return this builder
	 * @throws IllegalArgumentException if {@code quorum} is less than 1
	 */
	public RetryClusterBuilder clusterCircuit(String instanceName, int quorum) {
		Objects.requireNonNull(instanceName, "instanceName must not be null");
		if (quorum < 1) {
			throw new IllegalArgumentException("Invalid quorum (" + quorum + ") of circuit '" + instanceName
					+ "': must be 1 or greater");
		}
		this.clusterCircuits.put(instanceName, quorum);
		return this;
	}

	/**
	 * Lets context attributes of more classes travel between replicas, by Java serialization read back
	 * through an allow-list filter. Attributes of JDK value types ({@code String}, boxed primitives,
	 * {@code byte[]}, {@code BigInteger}, {@code BigDecimal}, {@code UUID}, {@code java.time} values, and
	 * lists, sets and maps of those) always travel, without Java serialization; others stay on their
	 * replica, counted ({@link ClusterStatus#withheldAttributes()}). None by default. Decoding checks a
	 * class's name against this list before it loads the class, and never initialises it to check it.
	 * @param classes class names ({@code com.example.Order}) or package prefixes ending in {@code .*}
	 * ({@code com.example.orders.*}: that package and its sub-packages)
	 * @return this builder
	 * @throws IllegalArgumentException if an entry is neither, covers the JDK ({@code java.},
	 * {@code javax.}, {@code jdk.}, {@code sun.}, {@code com.sun.}), is a one-segment package prefix
	 * ({@code org.*}, {@code com.*}), or names what is never allowed (proxies, {@code java.rmi.*},
	 * {@code java.security.SignedObject}, {@code java.lang.invoke.SerializedLambda}); the message names
	 * the entry and why
	 */
	public RetryClusterBuilder allowedAttributes(Collection<String> classes) {
		SnapshotCodec.allowing(classes);
		this.allowedAttributes.clear();
		this.allowedAttributes.addAll(classes);
		return this;
	}

	/**
	 * Sets the random generator handed to each shared budget's synchronisation. The budgets of this version
	 * draw nothing from it (a cluster token bucket no longer grants parts of the cluster's headroom at random);
	 * kept so that a seeded one keeps simulations repeatable if a budget draws again.
	 * @param random the generator (default a new {@link SplittableRandom})
	 * @return this builder
	 */
	public RetryClusterBuilder random(RandomGenerator random) {
		this.random = Objects.requireNonNull(random, "random must not be null");
		return this;
	}

	/**
	 * Builds the cluster.
	 * @return the cluster; its engine is reached for the first time when first used
	 */
	public RetryCluster build() {
		return new RetryCluster(this);
	}

	/**
	 * {@return {@code value}, checked to be 1 or more}
	 * @param name how the message names the value
	 * @param value the value
	 * @throws IllegalArgumentException if {@code value} is less than 1
	 */
	static int atLeastOne(String name, int value) {
		if (value < 1) {
			throw new IllegalArgumentException("Invalid " + name + " (" + value + "): must be 1 or greater");
		}
		return value;
	}

	private static Duration positive(String name, Duration value) {
		Objects.requireNonNull(value, name + " must not be null");
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException("Invalid " + name + " (" + value + "): must be positive");
		}
		return value;
	}

}
