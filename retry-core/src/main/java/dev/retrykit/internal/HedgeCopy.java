package dev.retrykit.internal;

import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

/**
 * One copy of a {@link HedgedCall}: its number, start, circuit permit and stage; the completion that
 * hands the stage's outcome to the call. Its mutable state is guarded by the call's lock.
 *
 * @param <T> the result type
 */
final class HedgeCopy<T> implements BiFunction<T, Throwable, Void> {

	final HedgedCall<T> call;

	final int number;

	final long startNanos;

	/** Guarded by the call's lock. */
	long permit;

	final @Nullable HedgeCopy<T> previous;

	/** Guarded by the call's lock: whether its outcome was taken or no longer matters. */
	boolean settled;

	/** Settled as the call ended: its stage is to be cancelled. */
	volatile boolean cancelled;

	volatile @Nullable CompletionStage<T> stage;

	HedgeCopy(HedgedCall<T> call, int number, long startNanos, long permit, @Nullable HedgeCopy<T> previous) {
		this.call = call;
		this.number = number;
		this.startNanos = startNanos;
		this.permit = permit;
		this.previous = previous;
	}

	@Override
	public @Nullable Void apply(@Nullable T value, @Nullable Throwable failure) {
		this.call.copyEnded(this, value, failure);
		return null;
	}

}
