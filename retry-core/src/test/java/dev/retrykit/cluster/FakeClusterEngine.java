package dev.retrykit.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import dev.retrykit.spi.ClusterEngine;
import org.jspecify.annotations.Nullable;

/**
 * An engine for tests: replicas made from the same {@link Store} share its maps and topic, delivered
 * synchronously. A replica's engine can be taken down (every operation throws) or made to hang.
 */
final class FakeClusterEngine implements ClusterEngine {

	/** What the replicas share. */
	static final class Store {

		final Map<String, byte[]> contexts = new ConcurrentHashMap<>();

		final Map<String, Long> budgets = new ConcurrentHashMap<>();

		final List<Subscription> subscribers = new CopyOnWriteArrayList<>();

		final Map<String, String> circuitStates = new ConcurrentHashMap<>();

		/** Delivers a message to every subscriber as if {@code sender} had published it. */
		void deliver(@Nullable String message, String sender) {
			this.subscribers.forEach(subscription -> subscription.receiver.receive(message, sender));
		}

		int members;

	}

	private final Store store;

	private final String member;

	volatile boolean down;

	volatile @Nullable CountDownLatch hang;

	/**
	 * When set, a compare-and-set waits for it, whatever interrupts it, and then applies: a write the
	 * caller gave up waiting for that the store applies all the same, as a remote store does.
	 */
	volatile @Nullable CountDownLatch lateWrites;

	/** The thread of the last operation that {@link #lateWrites} or {@link #lateReads} held. */
	volatile @Nullable Thread heldThread;

	/** How many operations that {@link #lateWrites} or {@link #lateReads} held have answered since. */
	final java.util.concurrent.atomic.AtomicInteger heldDone = new java.util.concurrent.atomic.AtomicInteger();

	/** Round trips to the store: reads of a context, and compare-and-sets. */
	final java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();

	final java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();

	/**
	 * When set, a read of a context waits for it, whatever interrupts it, and then answers: an operation
	 * the caller gave up waiting for that the store runs all the same, later.
	 */
	volatile @Nullable CountDownLatch lateReads;

	/** When set, reads answer and every compare-and-set throws. */
	volatile boolean writesDown;

	FakeClusterEngine(Store store) {
		this.store = store;
		store.members++;
		this.member = "member-" + store.members;
	}

	private void reach() {
		if (this.down) {
			throw new IllegalStateException("engine down");
		}
		CountDownLatch latch = this.hang;
		if (latch != null) {
			try {
				latch.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	private static void awaitUninterruptibly(@Nullable CountDownLatch latch) {
		boolean interrupted = false;
		while (latch != null) {
			try {
				latch.await();
				latch = null;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public String engineName() {
		return "fake";
	}

	@Override
	public int members() {
		reach();
		return this.store.members;
	}

	@Override
	public String localMember() {
		reach();
		return this.member;
	}

	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		reach();
		CountDownLatch late = this.lateReads;
		if (late != null) {
			this.heldThread = Thread.currentThread();
			awaitUninterruptibly(late);
		}
		this.reads.incrementAndGet();
		byte[] bytes = this.store.contexts.get(cache + "/" + key);
		if (late != null) {
			this.heldDone.incrementAndGet();
		}
		return bytes;
	}

	@Override
	public boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next) {
		reach();
		this.writes.incrementAndGet();
		if (this.writesDown) {
			throw new IllegalStateException("writes down");
		}
		CountDownLatch late = this.lateWrites;
		if (late == null) {
			return compareAndSet(cache + "/" + key, expected, next);
		}
		this.heldThread = Thread.currentThread();
		awaitUninterruptibly(late);
		boolean set = compareAndSet(cache + "/" + key, expected, next);
		this.heldDone.incrementAndGet();
		return set;
	}

	private boolean compareAndSet(String stored, byte @Nullable [] expected, byte @Nullable [] next) {
		if (expected == null) {
			return (next != null) ? this.store.contexts.putIfAbsent(stored, next) == null
					: !this.store.contexts.containsKey(stored);
		}
		// Identity, as the engine hands out the stored array itself: another writer replaced it.
		return (next != null) ? this.store.contexts.replace(stored, expected, next)
				: this.store.contexts.remove(stored, expected);
	}

	@Override
	public void removeContext(String cache, String key) {
		reach();
		this.store.contexts.remove(cache + "/" + key);
	}

	@Override
	public int contextCount(String cache) {
		reach();
		return (int) this.store.contexts.keySet().stream().filter(k -> k.startsWith(cache + "/")).count();
	}

	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		reach();
		List<StoredContext> entries = new ArrayList<>();
		this.store.contexts.forEach((k, v) -> {
			if (k.startsWith(cache + "/") && entries.size() < limit) {
				entries.add(new StoredContext(k.substring(cache.length() + 1), v));
			}
		});
		return entries;
	}

	@Override
	public void clearContexts(String cache) {
		reach();
		this.store.contexts.keySet().removeIf(k -> k.startsWith(cache + "/"));
	}

	@Override
	public long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		reach();
		return this.store.budgets.merge(budget, Math.max(0, Math.min(maxMilliTokens, maxMilliTokens + deltaMilliTokens)),
				(old, ignored) -> Math.max(0, Math.min(maxMilliTokens, old + deltaMilliTokens)));
	}

	@Override
	public void publishCircuit(String message) {
		reach();
		this.store.deliver(message, this.member);
	}

	@Override
	public AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver) {
		reach();
		Subscription subscription = new Subscription(receiver);
		this.store.subscribers.add(subscription);
		return () -> this.store.subscribers.remove(subscription);
	}

	@Override
	public void storeCircuitState(String circuit, @Nullable String state) {
		reach();
		if (state == null) {
			this.store.circuitStates.remove(circuit);
		}
		else {
			this.store.circuitStates.put(circuit, state);
		}
	}

	@Override
	public @Nullable String circuitState(String circuit) {
		reach();
		return this.store.circuitStates.get(circuit);
	}

	/** One subscriber, by identity. */
	record Subscription(CircuitMessageReceiver receiver) {

		@Override
		public boolean equals(Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this);
		}

	}

}
