package dev.retrykit;

import org.jspecify.annotations.Nullable;

import dev.retrykit.context.RetryContext;
/**
 * Supplies the result of a call whose attempts have all failed: a fallback.
 *
 * <p>Recovery runs when a call ends without success for any reason: retries exhausted, a failure
 * that is not retryable, an open circuit, a refused retry budget, or the deadline. The context tells
 * why through {@link RetryContext#getLastThrowable()}.
 *
 * @param <T> the type of the result; may be a {@code @Nullable} type
 */
@FunctionalInterface
public interface RecoveryCallback<T extends @Nullable Object> {

	/**
	 * Computes the fallback result.
	 * @param context the context of the failed call
	 * @return the result to return to the caller
	 * @throws Exception to end the call with that exception instead
	 */
	T recover(RetryContext context) throws Exception;

}
