package dev.retrykit.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import dev.retrykit.InMemoryRetryContextCache;
import dev.retrykit.RetryContext;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextCacheEntry;
import dev.retrykit.spi.RetryContextSnapshot;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The context cache of one instance, shared by the replicas through the engine. A stateful call reads
 * its entry once ({@link #get}) and records its outcome with {@link #update}, which the engine applies
 * with a compare-and-set loop on the stored bytes: the update (the engine adds the call's failures to
 * the count stored at that moment) runs again when another replica wrote in between, so calls with the
 * same key running at once on several replicas lose no failure and count none twice. Entries are
 * {@link RetryContextSnapshot}s with the contexts' serializable attributes.
 *
 * <p>Keys are shared in their {@code toString()} form, which must therefore be the same on every
 * replica (strings, numbers, lists and records of them). When the engine is unreachable or slow the
 * cache works on a local in-memory cache of the same capacity. Thread-safe.
 */
final class ClusterContextCache implements RetryContextCache {

	private final String instance;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final TimeSource timeSource;

	private final InMemoryRetryContextCache local;

	private volatile boolean used;

	/** The most evictions the engine has reported: kept while it is unreachable, so the count never drops. */
	private final AtomicLong sharedEvictions = new AtomicLong();

	ClusterContextCache(String instance, ClusterEngine engine, EngineCalls calls, int capacity, TimeSource timeSource) {
		this.instance = instance;
		this.engine = engine;
		this.calls = calls;
		this.timeSource = timeSource;
		this.local = new InMemoryRetryContextCache(capacity, timeSource);
	}

	@Override
	public @Nullable RetryContext get(Object key) {
		String shared = String.valueOf(key);
		Lookup lookup = this.calls.call(() -> new Lookup(true, this.engine.getContext(this.instance, shared)),
				() -> Lookup.LOCAL);
		if (!lookup.shared) {
			return this.local.get(key);
		}
		return (lookup.bytes != null) ? RetryContextSnapshot.fromBytes(lookup.bytes) : null;
	}

	@Override
	public void put(Object key, RetryContext context) {
		update(key, current -> context);
	}

	@Override
	public @Nullable RetryContext update(Object key, UnaryOperator<@Nullable RetryContext> update) {
		this.used = true;
		String shared = String.valueOf(key);
		Lookup stored = this.calls.call(() -> new Lookup(true, compareAndSet(shared, update)), () -> Lookup.LOCAL);
		if (!stored.shared) {
			return this.local.update(key, update);
		}
		return (stored.bytes != null) ? RetryContextSnapshot.fromBytes(stored.bytes) : null;
	}

	/** Applies {@code update} to the stored entry until no other writer came in between; returns what is stored. */
	private byte @Nullable [] compareAndSet(String shared, UnaryOperator<@Nullable RetryContext> update) {
		for (;;) {
			byte[] stored = this.engine.getContext(this.instance, shared);
			RetryContextSnapshot current = (stored != null) ? RetryContextSnapshot.fromBytes(stored) : null;
			RetryContext next = update.apply(current);
			long firstFailure = (current != null) ? current.getFirstFailureMillis() : this.timeSource.currentTimeMillis();
			byte[] bytes = (next != null) ? RetryContextSnapshot.of(next, firstFailure).toBytes() : null;
			if (this.engine.compareAndSetContext(this.instance, shared, stored, bytes)) {
				return bytes;
			}
		}
	}

	@Override
	public void remove(Object key) {
		String shared = String.valueOf(key);
		this.local.remove(key);
		this.calls.call(() -> {
			this.engine.removeContext(this.instance, shared);
			return true;
		}, () -> false);
	}

	@Override
	public int size() {
		return this.calls.call(() -> this.engine.contextCount(this.instance), this.local::size);
	}

	@Override
	public int capacity() {
		return this.local.capacity();
	}

	/**
	 * The evictions of the local fallback cache and those the engine counted on this replica for the
	 * shared store ({@link ClusterEngine#contextEvictions}): summed over the replicas, every eviction.
	 */
	@Override
	public long evictions() {
		long shared = this.calls.call(() -> this.engine.contextEvictions(this.instance), () -> -1L);
		return this.local.evictions() + this.sharedEvictions.accumulateAndGet(shared, Math::max);
	}

	@Override
	public boolean hasBeenUsed() {
		return this.used;
	}

	@Override
	public void clear() {
		this.local.clear();
		this.calls.call(() -> {
			this.engine.clearContexts(this.instance);
			return true;
		}, () -> false);
	}

	@Override
	public List<RetryContextCacheEntry> entries(int limit) {
		return this.calls.call(() -> {
			List<RetryContextCacheEntry> entries = new ArrayList<>();
			for (ClusterEngine.Entry entry : this.engine.contexts(this.instance, limit)) {
				entries.add(new RetryContextCacheEntry(entry.key(), entry.snapshot(), entry.snapshot().getFirstFailureMillis()));
			}
			return entries;
		}, () -> this.local.entries(limit));
	}

	@Override
	public String toString() {
		return "ClusterContextCache[instance=" + this.instance + ", engine=" + this.engine.engineName() + ", capacity="
				+ capacity() + "]";
	}

	/** What the engine answered, or that it did not and the local cache is to be used. */
	private record Lookup(boolean shared, byte @Nullable [] bytes) {

		static final Lookup LOCAL = new Lookup(false, null);

	}

}
