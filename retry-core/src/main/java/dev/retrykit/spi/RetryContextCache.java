package dev.retrykit.spi;

import java.util.List;
import java.util.function.UnaryOperator;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the contexts of stateful calls between calls, by {@link dev.retrykit.RetryState} key. The
 * default is the bounded in-memory {@code dev.retrykit.InMemoryRetryContextCache}; a cluster can plug in
 * a shared implementation. Implementations must be thread-safe, must never drop an entry silently
 * (count evictions), and must not throw from {@link #get}.
 *
 * <p>The engine never changes a context it read from the cache: each call works on its own copy and
 * records what it did through {@link #update}, atomically, so that concurrent calls with one key lose
 * no count. A cache may therefore store any {@link RetryContext} it likes, for example a serializable
 * snapshot of what the engine reads (retry count, last failure, exhausted mark, attributes) instead of
 * the engine's own object; the engine takes whatever {@link #get} and {@link #update} hand it.
 */
public interface RetryContextCache {

	/**
	 * {@return the cached context, or {@code null}}
	 * @param key the state key
	 */
	@Nullable RetryContext get(Object key);

	/**
	 * Stores a context, evicting another entry if the cache is full.
	 * @param key the state key
	 * @param context the context
	 */
	void put(Object key, RetryContext context);

	/**
	 * Removes the context of {@code key}, if there is one.
	 * @param key the state key
	 */
	void remove(Object key);

	/**
	 * Replaces the context of {@code key} with what {@code update} makes of the current one,
	 * atomically with respect to every other {@code update} of the key: the engine records each
	 * stateful call's outcome this way. {@code update} gets the cached context or {@code null} and
	 * returns the context to keep, or {@code null} to remove the entry; it has no side effects and may
	 * run more than once, so a distributed cache may apply it with a compare-and-set loop (for
	 * Hazelcast, {@code IMap.replace(key, expected, next)} or {@code putIfAbsent}, retried when another
	 * member won) and store a serializable copy of its result. Storing counts as a {@link #put}
	 * (evicting when full).
	 * <p>The default serialises updates on this cache object with {@code get} then {@code put} or
	 * {@code remove}: atomic only among callers of this method, and only within one JVM. Override it.
	 * @param key the state key
	 * @param update computes the new context from the cached one
	 * @return the context now cached, or {@code null} if none is
	 */
	default @Nullable RetryContext update(Object key, UnaryOperator<@Nullable RetryContext> update) {
		synchronized (this) {
			RetryContext next = update.apply(get(key));
			if (next == null) {
				remove(key);
			}
			else {
				put(key, next);
			}
			return next;
		}
	}

	/** {@return the number of cached contexts} */
	int size();

	/** {@return the most contexts kept at once, or -1 when unbounded} */
	int capacity();

	/** {@return the number of contexts evicted because the cache was full} */
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
	 * Removes every context, as {@link #clear()}, and tells whether all of them are gone. A cache with one
	 * store (the default: it calls {@link #clear()}) answers {@code true}. A cache shared through an engine
	 * answers {@code false} when the shared store could not be cleared (the engine was unreachable,
	 * slower than its timeout, or failed): what it keeps locally is cleared all the same, the shared
	 * contexts stay. Used by the {@code clear-cache} action of the actuator endpoint, which must not report
	 * success for a clear that did not happen. Never throws for an engine failure.
	 * @return whether every context was removed, the shared ones included
	 */
	default boolean tryClear() {
		clear();
		return true;
	}

	/**
	 * A snapshot of the cached entries, for diagnostics.
	 * @param limit the most entries to return
	 * @return up to {@code limit} entries, oldest first
	 */
	List<RetryContextCacheEntry> entries(int limit);

}
