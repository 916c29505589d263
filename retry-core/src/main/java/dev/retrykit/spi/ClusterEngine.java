package dev.retrykit.spi;

import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * A distributed engine through which the replicas of a service share retry state: stateful contexts,
 * retry budgets and circuit transitions. {@code dev.retrykit.cluster.RetryCluster} drives it and owns
 * everything that is the same for every engine — timeouts, falling back to local state, counting
 * fallbacks, when to exchange budget changes — so an engine (Hazelcast, later Redis) only maps these
 * operations onto its own data structures.
 *
 * <p>Every method may block on the network and may throw any runtime exception when the engine is
 * unreachable; the caller runs them off the calls' hot path and bounds how long it waits. Values cross
 * the engine as JDK types or bytes only, so that nothing depends on the application's classes being
 * deployed to the engine's servers. Implementations must be thread-safe.
 */
public interface ClusterEngine {

	/** @return the engine's name as the actuator shows it, e.g. {@code hazelcast} */
	String engineName();

	/**
	 * @return the number of members of the engine's cluster as this replica sees it
	 * @throws RuntimeException if the engine cannot be reached
	 */
	int members();

	/**
	 * Reads a stateful context.
	 * @param cache the name of the instance whose cache it is
	 * @param key the state key, in its string form
	 * @return the stored {@link RetryContextSnapshot#toBytes() encoded snapshot}, or {@code null}
	 */
	byte @Nullable [] getContext(String cache, String key);

	/**
	 * Stores a stateful context if the stored one is still {@code expected}, atomically with respect
	 * to every other write of the key on any replica: the compare-and-set with which the cluster's
	 * {@link RetryContextCache#update} applies its update, retrying when another replica won.
	 * @param cache the name of the instance whose cache it is
	 * @param key the state key, in its string form
	 * @param expected the bytes {@link #getContext} returned, or {@code null} if there was no entry
	 * @param next the encoded snapshot to store, or {@code null} to remove the entry
	 * @return whether the entry was {@code expected} and is now {@code next}
	 */
	boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next);

	/**
	 * @param cache the name of the instance whose cache it is
	 * @param key the state key, in its string form
	 */
	void removeContext(String cache, String key);

	/**
	 * @param cache the name of the instance whose cache it is
	 * @return the number of contexts stored for that instance
	 */
	int contextCount(String cache);

	/**
	 * @param cache the name of the instance whose cache it is
	 * @param limit the most entries to return
	 * @return up to {@code limit} stored contexts of that instance, by key
	 */
	List<Entry> contexts(String cache, int limit);

	/** @param cache the name of the instance whose contexts are all removed */
	void clearContexts(String cache);

	/**
	 * How many of an instance's contexts the store evicted because it was full, as far as this replica
	 * can count them: an engine whose store is spread over the replicas counts on each replica the
	 * evictions of the entries that replica held, so that the sum over the replicas is the total.
	 * Never decreases. The default counts nothing: an engine that cannot tell returns 0.
	 * @param cache the name of the instance whose cache it is
	 * @return the evictions this replica counted
	 */
	default long contextEvictions(String cache) {
		return 0;
	}

	/**
	 * Adds a replica's unsynchronised change to a shared retry budget, atomically with every other
	 * replica's, and clamps the result into {@code [0, maxMilliTokens]}. A budget that does not exist
	 * yet starts full.
	 * @param budget the budget's name
	 * @param deltaMilliTokens the change, in thousandths of a token (negative when tokens were taken)
	 * @param maxMilliTokens the budget's capacity, in thousandths of a token
	 * @return the cluster's tokens after the change, in thousandths of a token
	 */
	long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens);

	/**
	 * Sends a circuit transition to every replica (including, possibly, this one).
	 * @param signal the transition
	 */
	void publishCircuit(CircuitSignal signal);

	/**
	 * Delivers every circuit transition published by any replica.
	 * @param consumer called on the engine's own threads; must be fast and must not throw
	 * @return closes the subscription
	 */
	AutoCloseable subscribeCircuits(Consumer<CircuitSignal> consumer);

	/**
	 * One stored context.
	 * @param key the state key, in its string form
	 * @param snapshot the context
	 */
	record Entry(String key, RetryContextSnapshot snapshot) {
	}

}
