package dev.retrykit.spi;

import java.util.List;

import dev.retrykit.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the contexts of stateful calls between calls, by {@link dev.retrykit.RetryState} key. The
 * default is the bounded in-memory {@code dev.retrykit.InMemoryRetryContextCache}; a cluster can plug in
 * a shared implementation. Implementations must be thread-safe, must never drop an entry silently
 * (count evictions), and must not throw from {@link #get}.
 */
public interface RetryContextCache {

	/**
	 * @param key the state key
	 * @return the cached context, or {@code null}
	 */
	@Nullable RetryContext get(Object key);

	/**
	 * Stores a context, evicting another entry if the cache is full.
	 * @param key the state key
	 * @param context the context
	 */
	void put(Object key, RetryContext context);

	/**
	 * @param key the state key
	 */
	void remove(Object key);

	/** @return the number of cached contexts */
	int size();

	/** @return the most contexts kept at once, or -1 when unbounded */
	int capacity();

	/** @return the number of contexts evicted because the cache was full */
	long evictions();

	/**
	 * Whether a context has ever been stored. The endpoint shows an instance's cache once it has been
	 * used for stateful retry, also when it is empty again (the calls succeeded, or it was cleared).
	 * The default answers from {@link #size()} and {@link #evictions()}, which forgets a cache that
	 * emptied; implementations should remember.
	 * @return whether {@link #put} has ever been called
	 */
	default boolean hasBeenUsed() {
		return size() > 0 || evictions() > 0;
	}

	/** Removes every context. */
	void clear();

	/**
	 * A snapshot of the cached entries, for diagnostics.
	 * @param limit the most entries to return
	 * @return up to {@code limit} entries, oldest first
	 */
	List<RetryContextCacheEntry> entries(int limit);

}
