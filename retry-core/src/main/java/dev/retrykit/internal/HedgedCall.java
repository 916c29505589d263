package dev.retrykit.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.CallOutcome;
import dev.retrykit.RetryContext;
import dev.retrykit.RetryEventType;
import dev.retrykit.circuit.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * One hedged call (async, or blocking through {@link HedgedBlockingCall}): its future and copies. Copy i+1 starts
 * when {@link Hedges} finds it due ({@code delay} after copy i started), or at once (or after the
 * failure's delay hint) when a copy fails with a retryable failure; {@code maxAttempts} copies at most.
 * Every decision is {@link CallLifecycle}'s and every ending {@link CallEnding#finish}'s: a copy is an
 * attempt acquired through the lifecycle (the copy holds its circuit permit); one started by the delay
 * asks the budget and takes a token ({@link CallLifecycle#acquireHedge}); one started by a failure is a
 * retry. The first accepted result wins; the copies in flight are then settled (permit given back once),
 * their stages cancelled and their outcomes ignored. A non-retryable failure ends the call likewise; a
 * refused copy is not sent and the call waits for the copies in flight; when every copy failed the call
 * is exhausted and recovers as any call. A first copy that succeeds before {@code executeAsync} returns
 * costs what it does on any guarded instance: its own future is returned, nothing is allocated.
 *
 * <p>In copy k, {@link dev.retrykit.RetryContext#current()} is a context of its own whose
 * {@code getRetryCount()} is k − 1 and whose attribute {@value HedgeCopy#HEDGED} is {@code true} for k &gt; 1.
 * Listeners are told about copy k through a {@link HedgeCopyContext} that says the same; a copy settled
 * as the call ended gets no callback of its own (the call's {@code close} covers it).
 * State changes happen under this object's lock; user code (the supplier, stages' cancel, the recovery)
 * runs outside it, listeners inside it. Thread-safe.
 *
 * @param <T> the result type
 */
final class HedgedCall<T> extends CompletableFuture<T> {

	/** {@link #timerPassed} result: the timer no longer watches this call. */
	static final long UNWATCHED = Long.MIN_VALUE;

	private final RetryRuntime runtime;

	private final Hedges hedges;

	private final Supplier<? extends CompletionStage<T>> supplier;

	private final @Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery;

	private final MutableRetryContext context;

	private final int maxCopies;

	/** The copies started, the latest first; guarded by this. */
	private @Nullable HedgeCopy<T> copies;

	private int started;

	private int inFlight;

	/** Whether the call's end was decided (a winner, an ending, the caller's cancel); guarded by this. */
	private boolean ended;

	/** A copy started by the delay was refused: no more of those (copies after failures still run). */
	private boolean hedgesRefused;

	/** A copy is to start at {@link #dueNanos} as a retry (a failure's delay hint). */
	private boolean retryPending;

	/** When the next copy is due; written under the lock, read by the timer's pass without it. */
	private volatile long dueNanos;

	/** When the first copy started (as read once its supplier returned): an adaptive delay's samples count from it. */
	private long firstStartNanos;

	/** Whether the call is on {@link Hedges}' list. */
	private boolean watched;

	/** The next call on {@link Hedges}' list; written by {@code Hedges} only. */
	@Nullable HedgedCall<?> nextWatched;

	private HedgedCall(RetryRuntime runtime, Hedges hedges, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
		this.runtime = runtime;
		this.hedges = hedges;
		this.supplier = supplier;
		this.recovery = recovery;
		this.context = context;
		this.maxCopies = Math.max(1, runtime.maxAttempts);
	}

	/** Starts a hedged call, its first copy on this thread; returns that copy's future if it already succeeded. */
	static <T> CompletableFuture<T> start(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		return FIRST_COPY.start(runtime, supplier, recovery);
	}

	/** The first copy ({@link FirstAttempt}), handing over to a hedged call. */
	private static final FirstAttempt FIRST_COPY = new FirstAttempt() {

		@Override
		<T> CompletableFuture<T> newCall(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
				@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
			return new HedgedCall<>(runtime, Objects.requireNonNull(runtime.hedges), supplier, recovery, context);
		}

		@Override
		<T> void circuitOpen(CompletableFuture<T> call, ThreadCounters block) {
			HedgedCall<T> hedged = (HedgedCall<T>) call;
			hedged.ended = true;
			hedged.end(block, CallLifecycle.STOP_CIRCUIT_OPEN, null);
		}

		@Override
		long decide(RetryRuntime runtime, MutableRetryContext pooled, ThreadCounters block, @Nullable Object value) {
			return CallLifecycle.afterCopy(runtime, pooled, pooled, block, null, value, 1, runtime.maxAttempts > 1);
		}

		@Override
		<T> void carryOn(CompletableFuture<T> call, ThreadCounters block, long decision, @Nullable T value) {
			HedgedCall<T> hedged = (HedgedCall<T>) call;
			hedged.started = 1;
			hedged.firstStartNanos = hedged.hedges.timeSource.nanoTime();
			// No copy is in flight, so no lock is needed yet.
			hedged.act(block, hedged.react(decision), null, 0);
		}

		@Override
		<T> void carryOn(CompletableFuture<T> call, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
			((HedgedCall<T>) call).firstCopy(stage, thrown);
		}

	};

	/** Takes over the first copy, whose supplier returned {@code stage} or threw {@code thrown}. */
	private void firstCopy(@Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
		HedgeCopy<T> first = newCopy(HedgeCopyContext.told(this.runtime, this.context, 1));
		long delay = this.hedges.delayNanos();
		if (stage == null || thrown != null || this.maxCopies == 1 || delay == 0) {
			started(first, stage, thrown);
			return;
		}
		first.stage = stage;
		long due = first.startNanos + delay;
		this.dueNanos = (due < first.startNanos) ? Long.MAX_VALUE : due;
		this.watched = true;
		// Published to the timer before the stage can complete on another thread: no lock on this path.
		this.hedges.watch(this, this.dueNanos);
		stage.handle(first);
	}

	/** A new copy, holding the permit just acquired into the context; listeners know it as {@code told}. Locked. */
	private HedgeCopy<T> newCopy(RetryContext told) {
		HedgeCopy<T> copy = new HedgeCopy<>(this, ++this.started, this.hedges.timeSource.nanoTime(), this.context.permit,
				this.copies, told);
		this.context.permit = CircuitBreaker.NO_PERMISSION;
		if (copy.number == 1) {
			this.firstStartNanos = copy.startNanos;
		}
		this.copies = copy;
		this.inFlight++;
		if (copy.number > 1) {
			this.hedges.counters.hedgeStarted();
			this.runtime.counters.event(RetryEventType.HEDGE, copy.number, null, 0);
		}
		return copy;
	}

	/** Starts the next copy, unless the call ended or started all: {@code byDelay} the delay passed, else a retry. */
	private void startCopy(boolean byDelay) {
		ContextStack stack = ContextStack.get();
		ThreadCounters block = stack.counters(this.runtime);
		HedgeCopy<T> copy;
		RetryContext told;
		synchronized (this) {
			if (this.ended || this.started >= this.maxCopies || (byDelay && (this.hedgesRefused || this.retryPending))) {
				return;
			}
			told = HedgeCopyContext.told(this.runtime, this.context, this.started + 1);
			boolean acquired = byDelay ? CallLifecycle.acquireHedge(this.runtime, this.context, block, told)
					: CallLifecycle.acquireAttempt(this.runtime, this.context, block, told);
			if (!byDelay) {
				this.retryPending = false;
			}
			if (!acquired) {
				if (byDelay || this.inFlight > 0) {
					this.hedgesRefused = true;
					this.hedges.counters.hedgeRefused();
					return;
				}
				// A retry refused by the circuit with nothing in flight: the call ends, as any call would.
				this.ended = true;
				copy = null;
			}
			else {
				copy = newCopy(told);
			}
		}
		if (copy == null) {
			end(block, CallLifecycle.STOP_CIRCUIT_OPEN, null);
			return;
		}
		CompletionStage<T> stage = copy.run(this.supplier, stack, this.runtime.name, this.context.getLastThrowable());
		CallLifecycle.attemptReturned(this.runtime, told);
		started(copy, stage, null);
	}

	/** Takes over a copy once its supplier returned {@code stage} or threw {@code thrown}. */
	private void started(HedgeCopy<T> copy, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
		if (thrown != null || stage == null) {
			copyEnded(copy, null, (thrown != null) ? thrown : AttemptStages.nullStage(this.runtime.name));
		}
		else {
			copy.stage = stage;
			if (copy.cancelled) {
				// Settled while its supplier ran (another copy won): whoever reads the other's write cancels.
				AttemptStages.cancel(stage, true, this.runtime.name);
			}
			// handle, not whenComplete: see AsyncRetry.await
			stage.handle(copy);
		}
		hedgeAfter(copy);
	}

	/** Watches for the copy after {@code copy}: due the hedging delay after it started. */
	private void hedgeAfter(HedgeCopy<T> copy) {
		long delay = this.hedges.delayNanos();
		long due;
		boolean watch = false;
		synchronized (this) {
			if (this.ended || this.started >= this.maxCopies || this.hedgesRefused || this.retryPending
					|| copy.number != this.started) {
				return;
			}
			due = copy.startNanos + delay;
			this.dueNanos = (due < copy.startNanos) ? Long.MAX_VALUE : due;
			if (delay > 0 && !this.watched) {
				this.watched = true;
				watch = true;
			}
		}
		if (delay == 0) {
			startCopy(true);
		}
		else if (watch) {
			this.hedges.watch(this, due);
		}
		else {
			this.hedges.rearm(due);
		}
	}

	/**
	 * A pass of the hedging timer: starts the next copy if it is due.
	 * @return when the next copy is due, or {@link #UNWATCHED} when none will be
	 */
	long timerPassed(long nowNanos) {
		long due = this.dueNanos;
		if (due > nowNanos && !isDone()) {
			// Not due: the pass goes on without the lock (a call that ends meanwhile is dropped next time).
			return due;
		}
		boolean retry;
		synchronized (this) {
			if (!stillWatched()) {
				return UNWATCHED;
			}
			if (this.dueNanos > nowNanos) {
				return this.dueNanos;
			}
			retry = this.retryPending;
		}
		startCopy(!retry);
		synchronized (this) {
			return !stillWatched() ? UNWATCHED : Math.max(this.dueNanos, nowNanos + 1);
		}
	}

	/** The timer will not start this call's copies any more: its copies in flight end it, or it ends now. */
	void timerStopped(RejectedExecutionException reason) {
		ThreadCounters block = this.runtime.counters.forCurrentThread();
		synchronized (this) {
			this.watched = false;
			if (this.ended) {
				return;
			}
			if (this.inFlight > 0) {
				this.hedgesRefused = true;
				this.retryPending = false;
				return;
			}
			this.ended = true;
		}
		end(block, CallLifecycle.STOP_SCHEDULER_STOPPED, reason);
	}

	/** Under the lock: whether a copy may still start by the timer; if not, the timer drops the call. */
	private boolean stillWatched() {
		if (this.ended || this.started >= this.maxCopies || (this.hedgesRefused && !this.retryPending)) {
			this.watched = false;
			return false;
		}
		return true;
	}

	/** Takes the outcome of a copy. */
	void copyEnded(HedgeCopy<T> copy, @Nullable T value, @Nullable Throwable failure) {
		ThreadCounters block = this.runtime.counters.forCurrentThread();
		long decision;
		int settled = 0;
		synchronized (this) {
			if (copy.settled) {
				// Settled when the call ended: its permit was given back then, its outcome no longer matters.
				return;
			}
			copy.settled = true;
			this.inFlight--;
			this.context.permit = copy.permit;
			copy.permit = CircuitBreaker.NO_PERMISSION;
			@Nullable Throwable unwrapped = (failure != null) ? FailureClassifier.unwrap(failure) : null;
			decision = CallLifecycle.afterCopy(this.runtime, this.context, copy.told, block, unwrapped, value, copy.number,
					this.started < this.maxCopies);
			if (decision == CallLifecycle.ACCEPTED) {
				if (copy.number > 1) {
					this.hedges.counters.hedgeWon();
					this.runtime.counters.event(RetryEventType.HEDGE_WON, copy.number, null, 0);
				}
				settled = settleInFlight(true);
				this.ended = true;
			}
			else {
				if (copy.number > 1) {
					this.hedges.counters.hedgesLost(1);
				}
				decision = react(decision);
			}
		}
		act(block, decision, value, settled);
	}

	/** {@link #react}: nothing to do but wait for the copies in flight. */
	private static final long AWAIT = Long.MIN_VALUE;

	/**
	 * Under the lock, after a copy that was not accepted: a delay means a retry copy (now or at its
	 * hint), a refusal or exhaustion with copies in flight means waiting for them, anything else ends the
	 * call and settles the copies in flight.
	 * @return the decision to act on, {@link #AWAIT} when there is nothing to do now
	 */
	private long react(long decision) {
		if (decision > 0) {
			this.retryPending = true;
			this.dueNanos = this.hedges.timeSource.nanoTime() + decision;
			return decision;
		}
		if (decision == 0) {
			return 0;
		}
		if (this.inFlight > 0 && (decision == CallLifecycle.STOP_EXHAUSTED || decision == CallLifecycle.STOP_BUDGET
				|| decision == CallLifecycle.STOP_DEADLINE || decision == CallLifecycle.STOP_CIRCUIT_OPEN)) {
			if (decision != CallLifecycle.STOP_EXHAUSTED) {
				this.hedgesRefused = true;
				this.hedges.counters.hedgeRefused();
			}
			return AWAIT;
		}
		this.ended = true;
		settleInFlight(false);
		return decision;
	}

	/** Carries out, outside the lock, what was decided under it. */
	private void act(ThreadCounters block, long decision, @Nullable T value, int settled) {
		if (decision == CallLifecycle.ACCEPTED) {
			if (this.hedges.isAdaptive()) {
				// The call's latency, not the winner's own: a winning hedge's own latency is the shorter of a
				// race, and a cancelled loser's is never known, so either would drag the delay down round after
				// round. With the call's, a delay d settles where P(latency <= d) = quantile: below it, fewer than
				// that share of calls end by d and the quantile rises; above it, the quantile falls.
				this.hedges.succeeded(this.hedges.timeSource.nanoTime() - this.firstStartNanos);
			}
			complete(value);
			if (settled > 0) {
				cancelSettled(true);
			}
		}
		else if (decision == 0) {
			startCopy(false);
		}
		else if (decision > 0) {
			boolean watch;
			long due;
			synchronized (this) {
				watch = !this.watched && !this.ended;
				this.watched |= watch;
				due = this.dueNanos;
			}
			if (watch) {
				this.hedges.watch(this, due);
			}
			else {
				this.hedges.rearm(due);
			}
		}
		else if (decision != AWAIT) {
			cancelSettled(true);
			end(block, decision, null);
		}
	}

	/**
	 * Under the lock, as the call ends: settles every copy in flight, giving its permit back, and counts
	 * the hedges among them as lost (another copy won) or cancelled (the call ended without a winner).
	 * @return how many copies were settled, whose stages {@link #cancelSettled} is to cancel
	 */
	private int settleInFlight(boolean lost) {
		int settled = 0;
		int hedgesSettled = 0;
		for (HedgeCopy<T> copy = this.copies; copy != null; copy = copy.previous) {
			if (!copy.settled) {
				copy.settled = true;
				copy.cancelled = true;
				this.inFlight--;
				this.context.permit = copy.permit;
				copy.permit = CircuitBreaker.NO_PERMISSION;
				CallLifecycle.releaseAttempt(this.runtime, this.context);
				settled++;
				if (copy.number > 1) {
					hedgesSettled++;
				}
			}
		}
		if (hedgesSettled > 0) {
			if (lost) {
				this.hedges.counters.hedgesLost(hedgesSettled);
			}
			else {
				this.hedges.counters.hedgesCancelled(hedgesSettled);
			}
		}
		return settled;
	}

	/** Cancels the settled copies' stages; by the thread that ended the call (the list no longer changes). */
	private void cancelSettled(boolean mayInterruptIfRunning) {
		for (HedgeCopy<T> copy = this.copies; copy != null; copy = copy.previous) {
			if (copy.cancelled) {
				AttemptStages.cancel(copy.stage, mayInterruptIfRunning, this.runtime.name);
			}
		}
	}

	/** Ends a call that did not succeed, as {@link CallEnding#finish} says. */
	private void end(ThreadCounters block, long reason, @Nullable RejectedExecutionException refusal) {
		try {
			CallEnding.finish(this.runtime, this.context, block, reason, refusal, false, HedgeEnding.INSTANCE, this);
		}
		catch (Throwable ex) {
			// HedgeEnding throws nothing: it completes this future instead.
			completeExceptionally(ex);
		}
	}

	@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery() {
		return this.recovery;
	}

	MutableRetryContext context() {
		return this.context;
	}

	/** Cancels the call: no copy starts any more; the copies in flight give their permits back and are cancelled. */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		synchronized (this) {
			if (this.ended) {
				return isCancelled();
			}
			this.ended = true;
			settleInFlight(false);
		}
		CallCancelledException cancellation = new CallCancelledException(this.runtime.name);
		completeExceptionally(cancellation);
		cancelSettled(mayInterruptIfRunning);
		this.context.outcome(CallOutcome.failed(this.context.getRetryCount() >= 1));
		this.runtime.close(this.context, cancellation);
		return true;
	}

	@Override
	public String toString() {
		// Unlocked reads: a diagnostic that must not wait for a call that is stuck.
		return "HedgedCall[name=" + this.runtime.name + ", started=" + this.started + ", inFlight=" + this.inFlight + ", ended="
				+ this.ended + ", hedgesRefused=" + this.hedgesRefused + ", watched=" + this.watched + ", " + super.toString() + "]";
	}

}
