package dev.retrykit;

/**
 * One attempt of an operation that may be retried.
 *
 * @param <T> the type of the result
 * @param <E> the type of the checked exception the operation may throw
 */
@FunctionalInterface
public interface RetryCallback<T, E extends Throwable> {

	/**
	 * Runs one attempt.
	 * @param context the context of the call in progress; valid only until the call returns
	 * @return the result of the attempt
	 * @throws E when the attempt fails; the template decides whether to retry
	 */
	T doWithRetry(RetryContext context) throws E;

}
