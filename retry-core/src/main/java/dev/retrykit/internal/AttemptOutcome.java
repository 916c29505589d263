package dev.retrykit.internal;

import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

/**
 * What an async attempt's stage completes into when the attempt has no timeout: it hands the outcome
 * to the call ({@link AsyncRetry#attemptCompleted}). Kept apart from the call, so that the future a
 * caller holds is not a callback anyone can complete it through. Immutable; 16 bytes.
 *
 * @param <T> the result type
 */
final class AttemptOutcome<T> implements BiFunction<T, Throwable, @Nullable Void> {

	private final AsyncRetry<T> call;

	AttemptOutcome(AsyncRetry<T> call) {
		this.call = call;
	}

	@Override
	public @Nullable Void apply(@Nullable T value, @Nullable Throwable failure) {
		this.call.attemptCompleted(value, failure);
		return null;
	}

}
