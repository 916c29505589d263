package dev.retrykit.spi;

import java.util.List;

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
 * deployed to the engine's servers, and an engine never decodes what it stores: whatever another
 * process wrote there reaches {@code RetryCluster} as it is, which decodes it with its allow-list and
 * treats what it cannot decode as absent. Implementations must be thread-safe.
 */
public interface ClusterEngine {

	/** {@return the engine's name as the actuator shows it, e.g. {@code hazelcast}} */
	String engineName();

	/**
	 * {@return the number of members of the engine's cluster as this replica sees it}
	 * @throws RuntimeException if the engine cannot be reached
	 */
	int members();

	/**
	 * {@return the id under which the engine knows this replica: the same id that
	 * {@link #subscribeCircuits} gives as the sender of this replica's messages, where the engine can tell}
	 * @throws RuntimeException if the engine cannot be reached
	 */
	String localMember();

	/**
	 * Reads a stateful context.
	 * @param cache the name of the instance whose cache it is
	 * @param key the state key, in its string form
	 * @return the stored bytes (an {@link dev.retrykit.cluster.SnapshotCodec encoded snapshot}, or whatever another writer stored), or {@code null};
	 * for a stored value the engine does not hand over — of another type than it writes, or longer than
	 * {@link dev.retrykit.cluster.SnapshotCodec#MAX_BYTES} — bytes of the engine's choosing that no snapshot decodes from, which
	 * {@link #compareAndSetContext} accepts as {@code expected} for that value, so that the next write
	 * replaces it: such a value is an undecodable entry, never a failure of the engine
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
	 * Removes one stored context; removing an absent key does nothing.
	 * @param cache the name of the instance whose cache it is
	 * @param key the state key, in its string form
	 */
	void removeContext(String cache, String key);

	/**
	 * {@return the number of contexts stored for that instance}
	 * @param cache the name of the instance whose cache it is
	 */
	int contextCount(String cache);

	/**
	 * Lists some stored contexts without reading the others: an engine reads at most {@code limit}
	 * entries from its store, never the whole of it.
	 * @param cache the name of the instance whose cache it is
	 * @param limit the most entries to return
	 * @return up to {@code limit} stored contexts of that instance, as stored
	 */
	List<StoredContext> contexts(String cache, int limit);

	/**
	 * Removes every context stored for an instance.
	 * @param cache the name of the instance whose contexts are all removed
	 */
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
	 * Sends a message about a circuit to every replica (including, possibly, this one).
	 * @param message an {@link CircuitSignal#encode() encoded circuit signal}
	 */
	void publishCircuit(String message);

	/**
	 * Delivers every message published on the circuit channel, by any replica or by anything else that
	 * can reach the engine: the receiver checks and decodes them.
	 * @param receiver called on the engine's own threads; must be fast and must not throw
	 * @return closes the subscription
	 */
	AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver);

	/**
	 * Keeps a circuit's manual state in the engine, so that a replica that joins later, restarts or
	 * comes back from a fault learns it.
	 * @param circuit the circuit breaker's name
	 * @param state the {@link CircuitSignal.Kind#name() name} of the last manual transition, or
	 * {@code null} to forget it
	 */
	void storeCircuitState(String circuit, @Nullable String state);

	/**
	 * {@return the state {@link #storeCircuitState} last stored for it, or {@code null}; not checked:
	 * anything that can reach the engine may have written it}
	 * @param circuit the circuit breaker's name
	 */
	@Nullable String circuitState(String circuit);

	/**
	 * One stored context, as stored.
	 * @param key the state key, in its string form
	 * @param bytes the stored bytes: an encoded snapshot, or anything another writer put there
	 */
	record StoredContext(String key, byte[] bytes) {
	}

	/** Receives the messages of the circuit channel. */
	@FunctionalInterface
	interface CircuitMessageReceiver {

		/**
		 * Receives one message published on the topic.
		 * @param message the message, or {@code null} when what was published is not text (or is longer
		 * than a circuit message can be: an engine need not copy it)
		 * @param sender the sender as the engine identifies it (for Hazelcast, the publishing member),
		 * not as the message claims
		 */
		void receive(@Nullable String message, String sender);

	}

}
