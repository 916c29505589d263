package dev.retrykit.testing.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.cluster.SnapshotCodec;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ClusterEngine} whose store lives in this JVM: replicas made from one {@link Store} share it, as
 * replicas share a Hazelcast cluster or a Redis server. For tests and for trying the cluster without one;
 * it passes the engine contract ({@link ClusterEngineContract}). Contexts keep a TTL counted from their
 * last write and a bound per instance (least recently used evicted first, counted for the replica whose
 * write evicted them); compare-and-set compares bytes, as the real engines do; a stored value longer than
 * {@link SnapshotCodec#MAX_BYTES} reads as {@link #UNREADABLE}, which a compare-and-set that expects it
 * replaces, as the real engines do with a value of another type or too long; messages are delivered to
 * every subscriber on the publishing thread, with the publishing replica's id. Thread-safe.
 */
public final class InMemoryClusterEngine implements ClusterEngine {

	/** What a stored value longer than {@link SnapshotCodec#MAX_BYTES} reads as: bytes no snapshot decodes from. */
	private static final byte[] UNREADABLE = { 0, 'u', 'n', 'r', 'e', 'a', 'd', 'a', 'b', 'l', 'e' };

	private final Store store;

	private final String member;

	private final long ttlNanos;

	private final int capacity;

	private final Map<String, AtomicLong> evictions = new ConcurrentHashMap<>();

	/**
	 * One more replica of the store.
	 * @param store what the replicas share
	 * @param contextTtl how long a context is kept after its last write
	 * @param contextCapacity the most contexts an instance keeps
	 */
	public InMemoryClusterEngine(Store store, Duration contextTtl, int contextCapacity) {
		this.store = store;
		this.member = "member-" + store.members.incrementAndGet();
		this.ttlNanos = contextTtl.toNanos();
		this.capacity = contextCapacity;
	}

	/** What the replicas of one cluster share. */
	public static final class Store {

		/** An empty store, for the replicas of one cluster. */
		public Store() {
		}

		private final AtomicLong members = new AtomicLong();

		/** Per instance, by key, in the order of their last use. Guarded by itself. */
		private final Map<String, LinkedHashMap<String, Stored>> contexts = new HashMap<>();

		private final Map<String, Long> budgets = new HashMap<>();

		private final Map<String, String> circuitStates = new ConcurrentHashMap<>();

		private final List<Subscription> subscribers = new CopyOnWriteArrayList<>();

		/**
		 * Delivers something that is not text to every subscriber, as anything that reaches a real engine's
		 * channel could publish.
		 * @param sender the sender the subscribers are told
		 */
		public void publishNotText(String sender) {
			this.subscribers.forEach(subscription -> subscription.receiver.receive(null, sender));
		}

		/**
		 * Stores a value longer than {@link SnapshotCodec#MAX_BYTES} at a context, as anything that can write
		 * a real engine's store could, with a TTL of an hour.
		 * @param cache the instance
		 * @param key the context's key
		 */
		public void storeTooLong(String cache, String key) {
			synchronized (this.contexts) {
				this.contexts.computeIfAbsent(cache, name -> new LinkedHashMap<>(16, 0.75f, true))
					.put(key, new Stored(new byte[SnapshotCodec.MAX_BYTES + 1], System.nanoTime() + Duration.ofHours(1).toNanos()));
			}
		}

	}

	private record Stored(byte[] bytes, long expiresAt) {

		/** @return a copy of the bytes, or {@link #UNREADABLE} for a value longer than a snapshot can be */
		byte[] readable() {
			return (this.bytes.length > SnapshotCodec.MAX_BYTES) ? UNREADABLE.clone() : this.bytes.clone();
		}

	}

	/** One subscriber, by identity. */
	private static final class Subscription {

		final CircuitMessageReceiver receiver;

		Subscription(CircuitMessageReceiver receiver) {
			this.receiver = receiver;
		}

	}

	@Override
	public String engineName() {
		return "in-memory";
	}

	@Override
	public int members() {
		return (int) this.store.members.get();
	}

	@Override
	public String localMember() {
		return this.member;
	}

	/** The instance's live contexts, expired ones dropped. Called with the store's contexts locked. */
	private LinkedHashMap<String, Stored> contexts(String cache) {
		LinkedHashMap<String, Stored> map = this.store.contexts.computeIfAbsent(cache,
				name -> new LinkedHashMap<>(16, 0.75f, true));
		long now = System.nanoTime();
		map.values().removeIf(stored -> now - stored.expiresAt() >= 0);
		return map;
	}

	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		synchronized (this.store.contexts) {
			Stored stored = contexts(cache).get(key);
			return (stored != null) ? stored.readable() : null;
		}
	}

	@Override
	public boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next) {
		synchronized (this.store.contexts) {
			LinkedHashMap<String, Stored> map = contexts(cache);
			Stored stored = map.get(key);
			byte[] current = (stored != null) ? stored.readable() : null;
			if (!Arrays.equals(current, expected)) {
				return false;
			}
			if (next == null) {
				map.remove(key);
				return true;
			}
			map.put(key, new Stored(next.clone(), System.nanoTime() + this.ttlNanos));
			Iterator<String> eldest = map.keySet().iterator();
			while (map.size() > this.capacity && eldest.hasNext()) {
				eldest.next();
				eldest.remove();
				this.evictions.computeIfAbsent(cache, name -> new AtomicLong()).incrementAndGet();
			}
			return true;
		}
	}

	@Override
	public void removeContext(String cache, String key) {
		synchronized (this.store.contexts) {
			contexts(cache).remove(key);
		}
	}

	@Override
	public int contextCount(String cache) {
		synchronized (this.store.contexts) {
			return contexts(cache).size();
		}
	}

	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		List<StoredContext> listed = new ArrayList<>();
		synchronized (this.store.contexts) {
			for (Map.Entry<String, Stored> entry : contexts(cache).entrySet()) {
				if (listed.size() >= limit) {
					break;
				}
				listed.add(new StoredContext(entry.getKey(), entry.getValue().readable()));
			}
		}
		return listed;
	}

	@Override
	public void clearContexts(String cache) {
		synchronized (this.store.contexts) {
			contexts(cache).clear();
		}
	}

	@Override
	public long contextEvictions(String cache) {
		AtomicLong count = this.evictions.get(cache);
		return (count != null) ? count.get() : 0;
	}

	@Override
	public long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		synchronized (this.store.budgets) {
			long current = this.store.budgets.getOrDefault(budget, maxMilliTokens);
			long next = Math.max(0, Math.min(maxMilliTokens, current + deltaMilliTokens));
			this.store.budgets.put(budget, next);
			return next;
		}
	}

	@Override
	public void publishCircuit(String message) {
		this.store.subscribers.forEach(subscription -> subscription.receiver.receive(message, this.member));
	}

	@Override
	public AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver) {
		Subscription subscription = new Subscription(receiver);
		this.store.subscribers.add(subscription);
		return () -> this.store.subscribers.remove(subscription);
	}

	@Override
	public void storeCircuitState(String circuit, @Nullable String state) {
		if (state == null) {
			this.store.circuitStates.remove(circuit);
		}
		else {
			this.store.circuitStates.put(circuit, state);
		}
	}

	@Override
	public @Nullable String circuitState(String circuit) {
		return this.store.circuitStates.get(circuit);
	}

	@Override
	public String toString() {
		return "InMemoryClusterEngine[" + this.member + "]";
	}

}
