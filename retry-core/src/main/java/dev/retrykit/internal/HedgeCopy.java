package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import dev.retrykit.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * One copy of a {@link HedgedCall}: its number, start, circuit permit and stage; the completion that
 * hands the stage's outcome to the call. Its mutable state is guarded by the call's lock.
 *
 * @param <T> the result type
 */
final class HedgeCopy<T> implements BiFunction<T, Throwable, Void> {

	/** The attribute that tells a copy after the first that it is a hedge. */
	static final String HEDGED = "retry.hedged";

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

	/** What the listeners are told about this copy ({@link HedgeCopyContext#told}). */
	final RetryContext told;

	HedgeCopy(HedgedCall<T> call, int number, long startNanos, long permit, @Nullable HedgeCopy<T> previous,
			RetryContext told) {
		this.call = call;
		this.number = number;
		this.startNanos = startNanos;
		this.permit = permit;
		this.previous = previous;
		this.told = told;
	}

	/**
	 * Runs a copy after the first: its supplier sees a context of its own as
	 * {@link dev.retrykit.RetryContext#current()} (retry count: the copy's number less one; {@value #HEDGED}:
	 * true). A supplier that throws or returns {@code null} gives a failed stage, a failed copy.
	 */
	CompletionStage<T> run(Supplier<? extends CompletionStage<T>> supplier, ContextStack stack, String name,
			@Nullable Throwable lastFailure) {
		MutableRetryContext copyContext = new MutableRetryContext(name, stack.top());
		copyContext.restore(this.number - 1, lastFailure, false);
		copyContext.setAttribute(HEDGED, Boolean.TRUE);
		stack.push(copyContext);
		try {
			CompletionStage<T> stage = supplier.get();
			return (stage != null) ? stage : CompletableFuture.failedFuture(AttemptStages.nullStage(name));
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
		finally {
			stack.pop();
		}
	}

	@Override
	public @Nullable Void apply(@Nullable T value, @Nullable Throwable failure) {
		this.call.copyEnded(this, value, failure);
		return null;
	}

}
