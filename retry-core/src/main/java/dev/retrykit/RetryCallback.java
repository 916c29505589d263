package dev.retrykit;

import org.jspecify.annotations.Nullable;

import dev.retrykit.context.RetryContext;
/**
 * One attempt of an operation that may be retried.
 *
 * @param <T> the type of the result; may be a {@code @Nullable} type
 * @param <E> the type of the checked exception the operation may throw
 */
@FunctionalInterface
public interface RetryCallback<T extends @Nullable Object, E extends Throwable> {

	/**
	 * Runs one attempt.
	 * @param context the context of the call in progress; valid only until the call returns
	 * @return the result of the attempt
	 * @throws E when the attempt fails; the template decides whether to retry
	 */
	T doWithRetry(RetryContext context) throws E;

}
