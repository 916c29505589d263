package dev.retrykit;

import java.util.Objects;
import java.util.function.Predicate;

import dev.retrykit.context.RetryContext;
/**
 * Makes a call stateful: the key selects a {@link RetryContext} that is kept in the instance's
 * context cache between calls, so that a failing call can rethrow (and let a transaction roll back)
 * while the next call with the same key continues counting.
 *
 * <p>Immutable and thread-safe. The key must have proper {@code equals}/{@code hashCode}.
 *
 * @param key the key of the cached context (for example a message id)
 * @param forceRefresh whether to start a fresh context even if one is cached for the key
 * @param rollbackFor which failures must be rethrown so the caller rolls back (default: every
 * failure), also when they are not retryable or the attempts are used up; a failure this predicate
 * rejects is handled like a stateless call's within the same call instead: retried there, and
 * recovered there when exhausted
 */
public record RetryState(Object key, boolean forceRefresh, Predicate<Throwable> rollbackFor) {

	private static final Predicate<Throwable> ALWAYS = failure -> true;

	/**
	 * Makes a state; the factory methods cover the usual cases.
	 * @param key the key of the cached context
	 * @param forceRefresh whether to start a fresh context even if one is cached for the key
	 * @param rollbackFor which failures must be rethrown so the caller rolls back
	 */
	public RetryState {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(rollbackFor, "rollbackFor must not be null");
	}

	/**
	 * A state that rolls back on every failure and reuses a cached context.
	 * @param key the key of the cached context
	 * @return the state
	 */
	public static RetryState of(Object key) {
		return new RetryState(key, false, ALWAYS);
	}

	/**
	 * A state that rolls back on every failure.
	 * @param key the key of the cached context
	 * @param forceRefresh whether to start a fresh context even if one is cached
	 * @return the state
	 */
	public static RetryState of(Object key, boolean forceRefresh) {
		return new RetryState(key, forceRefresh, ALWAYS);
	}

}
