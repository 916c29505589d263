package dev.retrykit;

import org.jspecify.annotations.Nullable;

import dev.retrykit.context.RetryContext;
/**
 * One attempt of an operation that takes an argument: the form of {@link RetryCallback} for hot paths
 * that would otherwise allocate a capturing lambda per call (see
 * {@link RetryTemplate#execute(RetryFunction, Object)}).
 *
 * @param <A> the type of the argument
 * @param <T> the type of the result; may be a {@code @Nullable} type
 * @param <E> the type of the checked exception the operation may throw
 */
@FunctionalInterface
public interface RetryFunction<A, T extends @Nullable Object, E extends Throwable> {

	/**
	 * Runs one attempt.
	 * @param argument the argument the call was started with, the same for every attempt
	 * @param context the context of the call in progress; valid only until the call returns
	 * @return the result of the attempt
	 * @throws E when the attempt fails; the template decides whether to retry
	 */
	T apply(A argument, RetryContext context) throws E;

}
