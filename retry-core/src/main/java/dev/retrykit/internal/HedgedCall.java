package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * The caller's future of a hedged call (async, or blocking through {@link HedgedBlockingCall}); its
 * copies race in a {@link HedgeRace}, which completes it. A first copy that succeeds before
 * {@code executeAsync} returns costs what it does on any guarded instance: its own future is returned,
 * nothing is allocated ({@link HedgedFirstCopy}).
 *
 * <p>Completed from outside ({@link #cancel}, {@link #complete}, {@link #completeExceptionally}, and so
 * {@code orTimeout} and {@code completeOnTimeout}), the call starts no further copy, its copies in
 * flight are cancelled and counted as cancelled, and it ends through {@link CallEnding#endedFromOutside}:
 * as the non-hedged engine, which checks {@code isDone()} before every attempt, a hedged call stops
 * adding load to a backend its caller gave up on. ({@code obtrudeValue} and {@code obtrudeException}
 * are not watched.)
 *
 * <p>In copy k, {@link dev.retrykit.RetryTemplate#currentContext()} is a context of its own whose {@code getRetryCount()} is
 * k − 1 and whose attribute {@value HedgeCopy#HEDGED} is {@code true} for k &gt; 1. Listeners are told
 * about copy k through a {@link HedgeCopyContext} that says the same; a copy settled as the call ended
 * gets no callback of its own (the call's {@code close} covers it). Thread-safe.
 *
 * @param <T> the result type
 */
final class HedgedCall<T> extends CompletableFuture<T> {

	private final @Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery;

	private final HedgeRace<T> race;

	/**
	 * @param copies starts copy k &gt; 1 of an async call (its context pushed), or {@code null} with a source
	 * @param source starts every copy of a blocking call, or {@code null}
	 */
	HedgedCall(RetryRuntime runtime, @Nullable Function<MutableRetryContext, ? extends CompletionStage<T>> copies,
			HedgedFirstCopy.@Nullable CopySource<T> source,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
		this.recovery = recovery;
		this.race = new HedgeRace<>(runtime, java.util.Objects.requireNonNull(runtime.hedges), this, copies, source,
				context);
	}

	/**
	 * Starts a hedged async call, its first copy on this thread; returns that copy's future if it already
	 * succeeded. Each later copy runs the supplier with its own context pushed as the current one.
	 */
	static <T> CompletableFuture<T> start(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		return HedgedFirstCopy.INSTANCE.start(runtime, supplier, recovery);
	}

	HedgeRace<T> race() {
		return this.race;
	}

	@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery() {
		return this.recovery;
	}

	MutableRetryContext context() {
		return this.race.context;
	}

	/** Completes the call with the winner's result: the race's own completion, not one from outside. */
	void completeInside(@Nullable T value) {
		super.complete(value);
	}

	/**
	 * Ends a call that did not succeed, as {@link CallEnding#finish} says, the other copies' failures
	 * suppressed in the last: now, or once the listener callbacks being told are over ({@link HedgeRace#end}).
	 */
	void end(ThreadCounters block, long reason, @Nullable RejectedExecutionException refusal) {
		if (this.race.notices == null) {
			endNow(block, reason, refusal);
		}
		else {
			// Counted on the thread that runs the ending, which may not be this one.
			this.race.end(() -> endNow(this.race.runtime.counters.forCurrentThread(), reason, refusal));
		}
	}

	private void endNow(ThreadCounters block, long reason, @Nullable RejectedExecutionException refusal) {
		HedgeEnding.suppressOthers(this.race);
		try {
			CallEnding.finish(this.race.runtime, this.race.context, block, reason, refusal, false, HedgeEnding.INSTANCE,
					this);
		}
		catch (Throwable ex) {
			// HedgeEnding throws nothing: it completes this future instead.
			super.completeExceptionally(ex);
		}
	}

	/** The race's own failure, or the recovery's outcome: not a completion from outside. */
	void completeExceptionallyInside(Throwable failure) {
		super.completeExceptionally(failure);
	}

	@Override
	public boolean complete(@Nullable T value) {
		endFromOutside(null);
		return super.complete(value);
	}

	@Override
	public boolean completeExceptionally(Throwable failure) {
		endFromOutside(failure);
		return super.completeExceptionally(failure);
	}

	/** Cancels the call: no copy starts any more; the copies in flight give their permits back and are cancelled. */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		CallCancelledException cancellation = new CallCancelledException(this.race.runtime.name);
		endFromOutside(cancellation);
		return super.completeExceptionally(cancellation) || isCancelled();
	}

	/**
	 * The future is being completed from outside: unless the race ended already (its own completion, or
	 * the recovery's), it ends now, its copies cancelled before the future completes, so that whoever
	 * waits on the future finds no copy starting; its listeners are closed now, or, while callbacks are
	 * being told (one of them may be what completes the future), once they are over ({@link HedgeNotices}).
	 */
	private void endFromOutside(@Nullable Throwable failure) {
		if (!isDone() && HedgeSettling.endFromOutside(this.race)) {
			HedgeRace<T> ended = this.race;
			ended.end(() -> CallEnding.endedFromOutside(ended.runtime, ended.context, failure));
		}
	}

	@Override
	public String toString() {
		return "HedgedCall[" + this.race + ", " + super.toString() + "]";
	}

}
