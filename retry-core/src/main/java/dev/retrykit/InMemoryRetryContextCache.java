package dev.retrykit;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import dev.retrykit.context.RetryContext;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextCacheEntry;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link RetryContextCache}: in memory, bounded, and when full it evicts the eldest entry
 * (by insertion) and counts the eviction. Thread-safe (one lock; stateful retry is not a hot path).
 */
public final class InMemoryRetryContextCache implements RetryContextCache {

	/** The default capacity, 4096. */
	public static final int DEFAULT_CAPACITY = 4096;

	private final int capacity;

	private final TimeSource timeSource;

	private final ReentrantLock lock = new ReentrantLock();

	private final LinkedHashMap<Object, RetryContextCacheEntry> entries = new LinkedHashMap<>();

	private long evictions;

	private volatile boolean used;

	/** A cache of {@link #DEFAULT_CAPACITY} with the system clock. */
	public InMemoryRetryContextCache() {
		this(DEFAULT_CAPACITY, TimeSource.SYSTEM);
	}

	/**
	 * Makes an empty cache.
	 * @param capacity the most contexts kept, 1 or more
	 * @param timeSource the clock that stamps entries
	 * @throws IllegalArgumentException if {@code capacity} is less than 1
	 */
	public InMemoryRetryContextCache(int capacity, TimeSource timeSource) {
		this.capacity = RetryConfigBuilder.atLeastOne("context cache capacity", capacity);
		this.timeSource = timeSource;
	}

	@Override
	public @Nullable RetryContext get(Object key) {
		return locked(() -> {
			RetryContextCacheEntry entry = this.entries.get(key);
			return (entry != null) ? entry.context() : null;
		});
	}

	@Override
	public void put(Object key, RetryContext context) {
		locked(() -> store(key, context));
	}

	/** Atomic under the cache's lock; {@code update} runs while the lock is held, so it must be quick. */
	@Override
	public @Nullable RetryContext update(Object key, UnaryOperator<@Nullable RetryContext> update) {
		return locked(() -> {
			RetryContextCacheEntry existing = this.entries.get(key);
			RetryContext next = update.apply((existing != null) ? existing.context() : null);
			if (next == null) {
				this.entries.remove(key);
			}
			else {
				store(key, next);
			}
			return next;
		});
	}

	/** Stores an entry, keeping its creation time, and evicts the eldest when full; the caller holds the lock. */
	private void store(Object key, RetryContext context) {
		RetryContextCacheEntry existing = this.entries.get(key);
		long created = (existing != null) ? existing.createdAtMillis() : this.timeSource.currentTimeMillis();
		this.entries.put(key, new RetryContextCacheEntry(key, context, created));
		if (!this.used) {
			this.used = true;
		}
		if (this.entries.size() > this.capacity) {
			Iterator<Map.Entry<Object, RetryContextCacheEntry>> eldest = this.entries.entrySet().iterator();
			eldest.next();
			eldest.remove();
			this.evictions++;
		}
	}

	@Override
	public void remove(Object key) {
		locked(() -> this.entries.remove(key));
	}

	@Override
	public int size() {
		return locked(() -> this.entries.size());
	}

	@Override
	public int capacity() {
		return this.capacity;
	}

	@Override
	public long evictions() {
		return locked(() -> this.evictions);
	}

	@Override
	public boolean hasBeenUsed() {
		return this.used;
	}

	@Override
	public void clear() {
		locked(() -> this.entries.clear());
	}

	@Override
	public List<RetryContextCacheEntry> entries(int limit) {
		return locked(() -> {
			List<RetryContextCacheEntry> snapshot = new ArrayList<>(Math.min(limit, this.entries.size()));
			for (RetryContextCacheEntry entry : this.entries.values()) {
				if (snapshot.size() == limit) {
					break;
				}
				snapshot.add(entry);
			}
			return snapshot;
		});
	}

	/** {@return what {@code action} returns, run under the cache's lock} */
	private <T extends @Nullable Object> T locked(Supplier<T> action) {
		this.lock.lock();
		try {
			return action.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Runs {@code action} under the cache's lock. */
	private void locked(Runnable action) {
		locked(() -> {
			action.run();
			return null;
		});
	}

	@Override
	public String toString() {
		return "InMemoryRetryContextCache[size=" + size() + ", capacity=" + this.capacity + ", evictions="
				+ evictions() + "]";
	}

}
