package dev.retrykit.internal;

import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

/**
 * An async attempt in flight: what its stage completes into (the call takes the outcome of attempt
 * {@link #id}, {@link AsyncRetry#attemptCompleted}), and what the call waits on meanwhile, so that
 * cancelling the call reaches the attempt's stage. With an attempt timeout it is an
 * {@link AttemptTimeout}, which also holds the timer. Kept apart from the call, so that the future a
 * caller holds is not a callback anyone can complete it through. Immutable; 24 bytes.
 *
 * @param <T> the result type
 */
sealed class AttemptOutcome<T> implements BiFunction<T, Throwable, @Nullable Void> permits AttemptTimeout {

	final AsyncRetry<T> call;

	/** The stage the attempt's supplier returned. */
	final CompletionStage<T> stage;

	/** The attempt's number. */
	final int id;

	AttemptOutcome(AsyncRetry<T> call, CompletionStage<T> stage, int id) {
		this.call = call;
		this.stage = stage;
		this.id = id;
	}

	@Override
	public final @Nullable Void apply(@Nullable T value, @Nullable Throwable failure) {
		this.call.attemptCompleted(this.id, value, failure);
		return null;
	}

	/** Stops the attempt's timer, if it has one: its outcome was taken. */
	void stopTimer() {
	}

}
