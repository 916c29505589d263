package dev.retrykit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryEventType;
import dev.retrykit.circuit.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * The race of a hedged call's copies: when a copy starts, which one wins, what happens to the others.
 * Copy i+1 starts when the timer finds it due ({@code delay} after copy i started), or at once (or after
 * the failure's delay hint) when a copy fails with a retryable failure; {@code maxAttempts} copies at
 * most. Each copy times out at its attempt-timeout or the call's deadline ({@code max-duration}),
 * whichever comes first, as a copy failed with a {@link TimeoutException} (the deadline is the earlier of
 * {@code max-duration} and the caller's {@link dev.retrykit.Deadline}): so a deadline ends a call
 * whose copies never answer. Every decision is {@link CallLifecycle}'s and every ending
 * {@link CallEnding#finish}'s; {@link HedgeStarts} says whether a copy may start, {@link HedgeWaits}
 * what the call waits for on the timer.
 *
 * <p>The first accepted result wins; the copies in flight are then settled (permit given back once),
 * their stages cancelled and their outcomes ignored. A non-retryable failure ends the call likewise; a
 * refused copy is not sent and the call waits for the copies in flight; when every copy failed, the
 * last failure ends the call with the others' as its suppressed exceptions. A caller's future completed
 * from outside ({@link HedgedCall}) ends the race as a cancel does.
 *
 * <p>State changes happen under this object's lock; user code (suppliers, stages' cancel, the
 * recovery, the listeners) runs outside it: what a decision tells the listeners is recorded under the
 * lock and told after it ({@link HedgeNotices}), and the call's ending waits for the tellings in
 * progress so that {@code close} comes last. Thread-safe.
 *
 * @param <T> the result type
 */
final class HedgeRace<T> {

	final RetryRuntime runtime;

	final Hedges hedges;

	final HedgedCall<T> call;

	/** Starts copy k &gt; 1 of an async call with its own context ({@link HedgeCopy#contextOf}), or {@code null}. */
	private final @Nullable Function<MutableRetryContext, ? extends CompletionStage<T>> copies;

	/**
	 * Starts every copy of a blocking call with its context handed over, or {@code null}; its copies tell
	 * the listeners about themselves on the threads that run them.
	 */
	private final HedgedFirstCopy.@Nullable CopySource<T> source;

	final MutableRetryContext context;

	/** The listener callbacks told outside the lock, or {@code null} when the instance had no listener as the call started. */
	final @Nullable HedgeNotices notices;

	final int maxCopies;

	/** The call's deadline (max-duration or the caller's {@link dev.retrykit.Deadline}), or {@code Long.MAX_VALUE}. */
	final long deadlineNanos;

	final long attemptTimeoutNanos;

	/** The copies started, the latest first; guarded by this. */
	@Nullable HedgeCopy<T> copiesStarted;

	int started;

	int inFlight;

	/** Whether the call's end was decided (a winner, an ending, completed from outside); guarded by this. */
	boolean ended;

	/** A copy started by the delay was refused: no more of those (copies after failures still run). */
	boolean hedgesRefused;

	/** A copy is to start at {@link #dueNanos} as a retry (a failure's delay hint). */
	boolean retryPending;

	/** A due copy's start was handed to the executor and has not run yet. */
	boolean startPending;

	/** When the next copy is due, or {@code Long.MAX_VALUE}. */
	long dueNanos = Long.MAX_VALUE;

	long firstStartNanos;

	/** The failures of the copies that failed, in order, when more than one did; guarded by this. */
	private @Nullable List<Throwable> failures;

	/** The timer's node while the timer watches the call; guarded by this. */
	HedgeTimer.@Nullable Watch watch;

	HedgeRace(RetryRuntime runtime, Hedges hedges, HedgedCall<T> call,
			@Nullable Function<MutableRetryContext, ? extends CompletionStage<T>> copies,
			HedgedFirstCopy.@Nullable CopySource<T> source, MutableRetryContext context) {
		this.runtime = runtime;
		this.hedges = hedges;
		this.call = call;
		this.copies = copies;
		this.source = source;
		this.context = context;
		this.notices = runtime.listeners.isEmpty() ? null : new HedgeNotices();
		this.maxCopies = Math.max(1, runtime.maxAttempts);
		this.deadlineNanos = context.deadlineNanos;
		this.attemptTimeoutNanos = runtime.attemptTimeoutNanos();
	}

	private static long saturatedAdd(long a, long b) {
		long sum = a + b;
		return (b > 0 && sum < a) ? Long.MAX_VALUE : sum;
	}

	/** A new copy, holding the permit just acquired into the context; listeners know it as {@code told}. Locked. */
	HedgeCopy<T> newCopy(RetryContext told) {
		long now = this.hedges.timeSource.nanoTime();
		long timeout = Math.min(this.deadlineNanos,
				(this.attemptTimeoutNanos > 0) ? saturatedAdd(now, this.attemptTimeoutNanos) : Long.MAX_VALUE);
		HedgeCopy<T> copy = new HedgeCopy<>(this, ++this.started, now, timeout, this.context.permit,
				this.copiesStarted, told);
		this.context.permit = CircuitBreaker.NO_PERMISSION;
		if (copy.number == 1) {
			this.firstStartNanos = now;
		}
		this.copiesStarted = copy;
		this.inFlight++;
		if (copy.number > 1) {
			this.hedges.counters.hedgeStarted();
			this.runtime.counters.event(RetryEventType.HEDGE, copy.number, null, 0);
		}
		return copy;
	}

	/**
	 * Starts the next copy, unless the call ended or started all: {@code byDelay} the delay passed, else a
	 * retry; {@code fromTimer} when the timer handed the start over ({@link Hedges#startLater}).
	 */
	void startCopy(boolean byDelay, boolean fromTimer) {
		HedgeStarts.start(this, byDelay, fromTimer);
	}

	/** Whether the copies tell the listeners about themselves where they run (a blocking call's). */
	boolean copiesTellListeners() {
		return this.source != null;
	}

	/** Starts a copy on this thread: its supplier, or its task, with its own context handed over. */
	CompletionStage<T> runCopy(HedgeCopy<T> copy) {
		MutableRetryContext copyContext = HedgeCopy.contextOf(this.context, copy.number);
		try {
			HedgedFirstCopy.CopySource<T> blocking = this.source;
			CompletionStage<T> stage = (blocking != null) ? blocking.copy(copyContext, copy.told, this.notices)
					: java.util.Objects.requireNonNull(this.copies).apply(copyContext);
			return (stage != null) ? stage : CompletableFuture.failedFuture(AttemptStages.nullStage(this.runtime.name));
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** Takes over a copy once its supplier returned {@code stage} or threw {@code thrown}. */
	void started(HedgeCopy<T> copy, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
		if (thrown != null || stage == null) {
			copyEnded(copy, null, (thrown != null) ? thrown : AttemptStages.nullStage(this.runtime.name));
		}
		else {
			copy.stage = stage;
			if (copy.cancelled) {
				// Settled while its supplier ran (another copy won): whoever reads the other's write cancels.
				AttemptStages.cancel(stage, this.hedges.interruptLosers, this.runtime.name);
			}
			// handle, not whenComplete: see AsyncRetry.await
			stage.handle(copy);
		}
		HedgeWaits.hedgeAfter(this, copy);
	}

	/** Takes the outcome of a copy. */
	void copyEnded(HedgeCopy<T> copy, @Nullable T value, @Nullable Throwable failure) {
		copyEnded(copy, value, failure, false);
	}

	/** Takes the outcome of a copy; {@code onTimer} when the timer's pass timed it out (a retry then starts on its own). */
	void copyEnded(HedgeCopy<T> copy, @Nullable T value, @Nullable Throwable failure, boolean onTimer) {
		ThreadCounters block = this.runtime.counters.forCurrentThread();
		long decision;
		int settled = 0;
		HedgeNotices notices = this.notices;
		HedgeNotices.Told later = null;
		synchronized (this) {
			if (copy.settled) {
				// Settled when the call ended: its permit was given back then, its outcome no longer matters.
				return;
			}
			copy.settled = true;
			if (notices != null) {
				later = new HedgeNotices.Told(copy.told);
			}
			this.inFlight--;
			this.context.permit = copy.permit;
			copy.permit = CircuitBreaker.NO_PERMISSION;
			@Nullable Throwable unwrapped = (failure != null) ? FailureClassifier.unwrap(failure) : null;
			decision = CallLifecycle.afterCopy(this.runtime, this.context, copy.told, block, unwrapped, value, copy.number,
					this.started < this.maxCopies, later);
			if (decision == Decision.ACCEPTED) {
				if (copy.number > 1) {
					this.hedges.counters.hedgeWon();
					this.runtime.counters.event(RetryEventType.HEDGE_WON, copy.number, null, 0);
				}
				settled = HedgeSettling.settleInFlight(this, true);
				this.ended = true;
				HedgeWaits.unwatch(this);
			}
			else {
				if (unwrapped != null) {
					recordFailure(unwrapped);
				}
				if (copy.number > 1) {
					this.hedges.counters.hedgesLost(1);
				}
				decision = react(decision);
			}
			if (later != null) {
				// Queued once decided, under this lock: in the order of the decisions.
				java.util.Objects.requireNonNull(notices).add(later);
			}
		}
		if (notices != null) {
			notices.drain(this.runtime.listeners);
		}
		act(block, decision, value, settled, onTimer);
	}

	private void recordFailure(Throwable failure) {
		if (this.failures == null) {
			this.failures = new ArrayList<>(this.maxCopies);
		}
		this.failures.add(failure);
	}

	/**
	 * Under the lock, after a copy that was not accepted: a delay means a retry copy (now or at its
	 * hint), a refusal or exhaustion with copies in flight means waiting for them, anything else ends the
	 * call and settles the copies in flight.
	 * @return the decision to act on, {@link Decision#AWAIT} when there is nothing to do now
	 */
	long react(long decision) {
		if (decision > 0) {
			this.retryPending = true;
			this.dueNanos = this.hedges.timeSource.nanoTime() + decision;
			return decision;
		}
		if (decision == 0) {
			return 0;
		}
		if (this.inFlight > 0 && decision == Decision.STOP_DOWNSTREAM_EXHAUSTED) {
			// The downstream gave up: no copy starts any more, the copies in flight may still win.
			this.hedgesRefused = true;
			return Decision.AWAIT;
		}
		if (this.inFlight > 0 && (decision == Decision.STOP_EXHAUSTED || decision == Decision.STOP_BUDGET
				|| decision == Decision.STOP_DEADLINE || decision == Decision.STOP_CIRCUIT_OPEN)) {
			if (decision != Decision.STOP_EXHAUSTED) {
				this.hedgesRefused = true;
				this.hedges.counters.hedgeRefused();
			}
			return Decision.AWAIT;
		}
		this.ended = true;
		HedgeWaits.unwatch(this);
		HedgeSettling.settleInFlight(this, false);
		return decision;
	}

	/** Carries out, outside the lock, what was decided under it; a retry on the timer's pass starts on its own. */
	void act(ThreadCounters block, long decision, @Nullable T value, int settled, boolean onTimer) {
		if (decision == Decision.ACCEPTED) {
			if (this.hedges.isAdaptive()) {
				// The call's latency, not the winner's own: a winning hedge's own latency is the shorter of a
				// race, and a cancelled loser's is never known, so either would drag the delay down round after
				// round. With the call's, a delay d settles where P(latency <= d) = quantile.
				long now = this.hedges.timeSource.nanoTime();
				this.hedges.succeeded(now - this.firstStartNanos, now);
			}
			this.call.completeInside(value);
			if (settled > 0) {
				HedgeSettling.cancelSettled(this);
			}
		}
		else if (decision == 0 && onTimer) {
			synchronized (this) {
				this.startPending = true;
			}
			this.hedges.startLater(this, false);
		}
		else if (decision == 0) {
			startCopy(false, false);
		}
		else if (decision > 0) {
			HedgeWaits.rewatch(this);
		}
		else if (decision != Decision.AWAIT) {
			HedgeSettling.cancelSettled(this);
			this.call.end(block, decision, null);
		}
	}

	/** Whether {@code copy} was settled: its outcome taken, or the call ended without it. */
	synchronized boolean isSettled(HedgeCopy<T> copy) {
		return copy.settled;
	}

	/**
	 * Runs the call's ending ({@code close}, recovery, failure) now, or, while listener callbacks are being
	 * told, once they are over ({@link HedgeNotices#end}). Outside the lock.
	 */
	void end(Runnable ending) {
		HedgeNotices told = this.notices;
		if (told != null) {
			told.end(ending);
		}
		else {
			ending.run();
		}
	}

	/** The failures of the copies that failed, in order, taken once as the call ends; {@code null} if fewer than two. */
	synchronized @Nullable List<Throwable> takeFailures() {
		List<Throwable> all = this.failures;
		this.failures = null;
		return (all != null && all.size() > 1) ? all : null;
	}

	@Override
	public String toString() {
		// Unlocked reads: a diagnostic that must not wait for a call that is stuck.
		return "HedgeRace[name=" + this.runtime.name + ", started=" + this.started + ", inFlight=" + this.inFlight
				+ ", ended=" + this.ended + ", hedgesRefused=" + this.hedgesRefused + "]";
	}

}
