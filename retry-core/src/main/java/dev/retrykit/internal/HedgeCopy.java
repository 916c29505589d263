package dev.retrykit.internal;

import java.util.function.BiFunction;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * One copy of a hedged call ({@link HedgeRace}): its number, start, timeout, circuit permit and stage;
 * the completion that hands the stage's outcome to the race. Its mutable state is guarded by the
 * race's lock, but for the stage and whether it is to be cancelled, which other threads read.
 *
 * @param <T> the result type
 */
final class HedgeCopy<T> implements BiFunction<T, Throwable, Void> {

	/** The attribute that tells a copy after the first that it is a hedge. */
	static final String HEDGED = "retry.hedged";

	final HedgeRace<T> race;

	final int number;

	final long startNanos;

	/** When the copy times out (its attempt-timeout, or the call's deadline), or {@code Long.MAX_VALUE}. */
	final long timeoutNanos;

	/** Guarded by the race's lock. */
	long permit;

	final @Nullable HedgeCopy<T> previous;

	/** Guarded by the race's lock: whether its outcome was taken or no longer matters. */
	boolean settled;

	/** Guarded by the race's lock: its timeout was handed off the timer's thread ({@link Hedges#timeOutLater}). */
	boolean timingOut;

	/** Settled as the call ended, or timed out: its stage is to be cancelled. */
	volatile boolean cancelled;

	volatile java.util.concurrent.@Nullable CompletionStage<T> stage;

	/** What the listeners are told about this copy ({@link HedgeCopyContext#told}). */
	final RetryContext told;

	HedgeCopy(HedgeRace<T> race, int number, long startNanos, long timeoutNanos, long permit,
			@Nullable HedgeCopy<T> previous, RetryContext told) {
		this.race = race;
		this.number = number;
		this.startNanos = startNanos;
		this.timeoutNanos = timeoutNanos;
		this.permit = permit;
		this.previous = previous;
		this.told = told;
	}

	/**
	 * {@return the context a copy runs with: its own, retry count its number less one, {@value #HEDGED}
	 * true after the first, the call's parent, last failure and deadline}
	 */
	static MutableRetryContext contextOf(MutableRetryContext call, int number) {
		MutableRetryContext copy = new MutableRetryContext(call.getName(), call.getParent());
		copy.restore(number - 1, call.getLastThrowable(), false);
		// The copy runs under the call's deadline, wherever it runs (CallDeadlines.enter).
		copy.deadline(call.deadlineNanos, call.deadline());
		if (number > 1) {
			copy.setAttribute(HEDGED, Boolean.TRUE);
		}
		return copy;
	}

	@Override
	public @Nullable Void apply(@Nullable T value, @Nullable Throwable failure) {
		this.race.copyEnded(this, value, failure);
		return null;
	}

}
