package dev.retrykit.spi;

import dev.retrykit.context.RetryContext;

/**
 * One cached stateful context, as listed by {@link RetryContextCache#entries(int)}.
 *
 * @param key the state key
 * @param context the context
 * @param createdAtMillis when the entry was first stored (epoch milliseconds)
 */
public record RetryContextCacheEntry(Object key, RetryContext context, long createdAtMillis) {
}
