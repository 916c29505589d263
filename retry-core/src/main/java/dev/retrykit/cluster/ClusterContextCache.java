package dev.retrykit.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * its entry once ({@link #get}) and writes it once ({@link #put} when it fails, {@link #remove} when it
 * ends). The write is an atomic update that adds the failures of this call to the count stored at that
 * moment, so calls with the same key running at once on several replicas lose no failure and count
 * none twice: the cache remembers, per thread, the count it handed out for each key until the call
 * writes. A call that did not read (a forced refresh) replaces the entry.
 *
 * <p>Keys are shared in their {@code toString()} form, which must therefore be the same on every
 * replica (strings, numbers, lists and records of them). When the engine is unreachable or slow the
 * cache works on a local in-memory cache of the same capacity. Thread-safe.
 */
final class ClusterContextCache implements RetryContextCache {

	/** Per thread: the count each key had when this thread's call read it, by cache and key. */
	private static final ThreadLocal<Map<String, Integer>> READS = ThreadLocal.withInitial(HashMap::new);

	private final String instance;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final TimeSource timeSource;

	private final InMemoryRetryContextCache local;

	private volatile boolean used;

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
		RetryContextSnapshot snapshot = lookup.snapshot;
		READS.get().put(readKey(shared), (snapshot != null) ? snapshot.retryCount() : 0);
		return (snapshot != null) ? snapshot.toContext(this.instance) : null;
	}

	@Override
	public void put(Object key, RetryContext context) {
		this.used = true;
		String shared = String.valueOf(key);
		Integer read = READS.get().remove(readKey(shared));
		int added = (read != null) ? context.getRetryCount() - read : -1;
		RetryContextSnapshot snapshot = RetryContextSnapshot.of(context, Map.of(), this.timeSource.currentTimeMillis());
		boolean stored = this.calls.call(() -> {
			this.engine.updateContext(this.instance, shared, current -> snapshot.mergeInto(current, added));
			return true;
		}, () -> false);
		if (!stored) {
			this.local.put(key, context);
		}
	}

	@Override
	public void remove(Object key) {
		String shared = String.valueOf(key);
		READS.get().remove(readKey(shared));
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

	@Override
	public long evictions() {
		return this.local.evictions();
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
				entries.add(new RetryContextCacheEntry(entry.key(), entry.snapshot().toContext(this.instance),
						entry.snapshot().firstFailureMillis()));
			}
			return entries;
		}, () -> this.local.entries(limit));
	}

	private String readKey(String shared) {
		return this.instance + '\u0000' + shared;
	}

	@Override
	public String toString() {
		return "ClusterContextCache[instance=" + this.instance + ", engine=" + this.engine.engineName() + ", capacity="
				+ capacity() + "]";
	}

	/** What the engine answered, or that it did not and the local cache is to be used. */
	private record Lookup(boolean shared, @Nullable RetryContextSnapshot snapshot) {

		static final Lookup LOCAL = new Lookup(false, null);

	}

}
