package dev.retrykit.internal;

import dev.retrykit.DownstreamExhaustedException;
import dev.retrykit.context.CallOutcome;
import dev.retrykit.context.RetryContext;
import dev.retrykit.context.StopReason;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryInterruptedException;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * The protocol of one call, written once for every engine: synchronous, stateful, async and failback.
 * An engine only runs attempts and waits (sleeps, schedules, re-queues); every decision in between is
 * a step here, and each step says what to do next:
 * <pre>
 * open ({@link CallOpening}) ──vetoed──▶ end
 *  │  └──the caller's deadline has passed ({@link CallDeadlines#passedAtOpen})──▶ finish(Decision.STOP_DEADLINE)
 *  ▼
 * acquireAttempt ──refused──▶ finish(Decision.STOP_CIRCUIT_OPEN)
 *  │ (listeners' beforeAttempt; engine runs the attempt; attemptReturned)
 *  ▼
 * afterAttempt ──Decision.ACCEPTED──▶ done (success recorded)
 *  │        └──STOP_*──▶ finish: end ─▶ restore the interrupt ─▶ recover, if {@link CallEnding#recovers}; else close and fail
 *  ▼ delay ≥ 0
 * (engine waits: {@link #sleep}, or schedules) ──▶ acquireAttempt …
 * </pre>
 * A hedged call ({@link HedgedCall}) runs the same steps with copies side by side: each copy is an
 * attempt ({@link #acquireAttempt}, or {@link #acquireHedge} when its delay passed), its outcome goes
 * through {@link #afterCopy}, which counts the copies left instead of the failures.
 *
 * An engine ends every call that did not succeed through {@link CallEnding#finish}, saying only how its
 * recovery runs and how it fails ({@link CallEnding.Ending}); so the order of ending, restoring the caller's
 * interrupt, recovering and closing the listeners is written once.
 *
 * <p>The steps hold these rules for every engine by construction:
 * <ul>
 * <li>no step throws for user code: a result predicate, classifier, status or delay-hint extractor,
 * policy or backoff that throws ends the call with {@link Decision#STOP_BROKEN} and that exception (the
 * attempt's failure suppressed in it, no recovery); listeners are contained by {@link Listeners};
 * <li>the circuit breaker's permit of an attempt is reported or released exactly once, whatever
 * happens: after reporting, the context's permit is {@link CircuitBreaker#NO_PERMISSION};
 * <li>an attempt that fails with {@link InterruptedException} is not retried
 * ({@link Decision#STOP_INTERRUPTED}): the engine ends the call with it and, where the attempt ran on the
 * caller's thread, sets that thread's interrupt flag again;
 * <li>a call counts as "with retry" once more than one of its attempts ran or was refused;
 * <li>a rejection by the circuit carries the call's last real failure as its cause;
 * <li>no attempt, backoff or hedged copy starts that would end after the call's deadline
 * ({@link MutableRetryContext#deadlineNanos}: max-duration or the caller's {@link dev.retrykit.Deadline});
 * <li>a {@link DownstreamExhaustedException} is never retried, and once a copy failed with one no
 * further copy starts.
 * </ul>
 * Stateless, allocation-free on the success path; thread-safe as far as one call's steps run one at
 * a time.
 */
final class CallLifecycle {

	private CallLifecycle() {
	}

	/**
	 * Waits before the next attempt of a call that waits on its own thread.
	 * @param delayNanos the delay; nothing happens when it is zero or less
	 * @return the delay (0 if none) when it was waited out, or {@link Decision#STOP_WAIT_INTERRUPTED} when the thread was
	 * interrupted meanwhile (the interrupt is then recorded, and {@link CallEnding#finish} sets the flag again)
	 */
	static long sleep(RetryRuntime runtime, MutableRetryContext context, long delayNanos) {
		if (delayNanos <= 0) {
			return 0;
		}
		try {
			runtime.sleeper.sleep(delayNanos);
			return delayNanos;
		}
		catch (InterruptedException ex) {
			Throwable last = context.getLastThrowable();
			runtime.counters.event(RetryEventType.INTERRUPTED, context.getRetryCount(), last, delayNanos);
			context.rejected(new RetryInterruptedException("Retry '" + runtime.name + "' was interrupted while waiting "
					+ Durations.formatNanos(delayNanos) + " before attempt " + (context.getRetryCount() + 1)
					+ "; the cause is the last failure", last));
			return Decision.STOP_WAIT_INTERRUPTED;
		}
	}

	/**
	 * Asks the breaker (if any) to let the next attempt through, counts the attempt and tells the
	 * listeners that it starts ({@link dev.retrykit.RetryListener#beforeAttempt}); the engine runs it
	 * right after.
	 * @return whether the attempt may run; if not, end the call with {@link Decision#STOP_CIRCUIT_OPEN}
	 */
	static boolean acquireAttempt(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block) {
		return acquireAttempt(runtime, context, block, context);
	}

	/**
	 * {@link #acquireAttempt}, telling the listeners {@code told}: a hedged call's copy
	 * ({@link HedgeCopyContext}), so that they know which copy starts.
	 */
	static boolean acquireAttempt(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			RetryContext told) {
		return acquireAttempt(runtime, context, block, told, true);
	}

	/**
	 * {@link #acquireAttempt}; with {@code tell} false the listeners are not told here: a blocking hedged
	 * copy tells them on the thread that runs it ({@link BlockingCopyTask}), so that what they open for the
	 * attempt (an observation's scope) is current where its code runs.
	 */
	static boolean acquireAttempt(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			RetryContext told, boolean tell) {
		CircuitBreaker breaker = runtime.circuit;
		if (breaker != null) {
			long permit = breaker.acquirePermission();
			if (permit == CircuitBreaker.NO_PERMISSION) {
				return false;
			}
			context.permit = permit;
		}
		block.attempt();
		if (tell && !runtime.listeners.isEmpty()) {
			runtime.listeners.beforeAttempt(told);
		}
		return true;
	}

	/**
	 * Tells the listeners that the attempt's code has returned to the engine
	 * ({@link dev.retrykit.RetryListener#attemptReturned}); the engine calls it on the thread that called
	 * {@link #acquireAttempt}, after every attempt that acquired, before {@link #afterAttempt}.
	 */
	static void attemptReturned(RetryRuntime runtime, RetryContext context) {
		if (!runtime.listeners.isEmpty()) {
			runtime.listeners.attemptReturned(context);
		}
	}

	/** Gives back the permit of an attempt whose outcome no longer matters; a no-op once reported. */
	static void releaseAttempt(RetryRuntime runtime, MutableRetryContext context) {
		CircuitBreaker breaker = runtime.circuit;
		if (breaker != null) {
			long permit = context.permit;
			context.permit = CircuitBreaker.NO_PERMISSION;
			breaker.releasePermission(permit);
		}
	}

	/**
	 * Takes an attempt's outcome and decides what follows. Never throws for user code.
	 * @param failure the attempt's failure, unwrapped from completion wrappers, or {@code null}
	 * @param result the attempt's result when {@code failure} is {@code null}
	 * @return {@link Decision#ACCEPTED}, the delay before the next attempt (zero or more), or a negative
	 * {@code STOP_*} reason to pass to {@link CallEnding#end}
	 */
	static long afterAttempt(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			@Nullable Throwable failure, @Nullable Object result) {
		return after(runtime, context, context, block, failure, result, Decision.Turn.NOT_HEDGED, 1, null);
	}

	/**
	 * Hedging: takes a copy's outcome, as {@link #afterAttempt} takes an attempt's, with one difference:
	 * the attempts left are the copies not started yet, not the attempts not failed yet (copies run
	 * side by side), and once a copy failed with a {@link DownstreamExhaustedException} no copy follows.
	 * The engine holds the copy's permit in the context while this runs. A delay
	 * (zero or more) means that a copy is to start after it, as a retry (the budget was asked, the
	 * {@code RETRY} event recorded). With other copies in flight, the engine waits for them instead of
	 * ending the call on {@link Decision#STOP_EXHAUSTED} or a refusal ({@link Decision#STOP_BUDGET}, {@link Decision#STOP_DEADLINE},
	 * {@link Decision#STOP_CIRCUIT_OPEN}).
	 * The listeners are told about the copy through {@code told}; the call's context is the one closed.
	 * A call that a copy after the first wins counts as successful with retry, as it did not succeed on
	 * its first attempt.
	 * @param copy the copy's number, the first being 1
	 * @param mayStartAnother whether fewer copies started than the call may start
	 * @param later where the callbacks are recorded, to be told once the engine's lock is released
	 * ({@link HedgeNotices}), or {@code null} to tell them now
	 */
	static long afterCopy(RetryRuntime runtime, MutableRetryContext context, RetryContext told, ThreadCounters block,
			@Nullable Throwable failure, @Nullable Object result, int copy, boolean mayStartAnother,
			HedgeNotices.@Nullable Told later) {
		return after(runtime, context, told, block, failure, result, mayStartAnother ? Decision.Turn.COPY_MAY_FOLLOW : Decision.Turn.LAST_COPY, copy,
				later);
	}

	/**
	 * Hedging: asks whether a copy may start because the call's hedging delay passed (no copy failed),
	 * and acquires it ({@link #acquireAttempt}): not past the deadline, the budget allows a retry, the
	 * circuit gives a permit. A copy that starts takes a budget token, as a failed attempt does: in a
	 * slowdown where every call is slow but none fails, hedges drain the budget and stop themselves.
	 * @return whether the copy may start; if not, nothing was acquired
	 */
	static boolean acquireHedge(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			RetryContext told) {
		if (runtime.isPastDeadline(context, 0)) {
			return false;
		}
		if (runtime.budget != null && !runtime.budget.tryAcquireRetry()) {
			return false;
		}
		if (!acquireAttempt(runtime, context, block, told)) {
			return false;
		}
		if (runtime.budget != null) {
			runtime.budget.onFailure();
		}
		return true;
	}

	/**
	 * {@code told} is what the listeners are told about the attempt: the call's context, or a copy's;
	 * {@code attempt} is the number of the attempt when it runs beside others (a hedge), else 1;
	 * {@code later} records the callbacks instead of telling them, or is {@code null}.
	 */
	private static long after(RetryRuntime runtime, MutableRetryContext context, RetryContext told,
			ThreadCounters block, @Nullable Throwable failure, @Nullable Object result, Decision.Turn hedged, int attempt,
			HedgeNotices.@Nullable Told later) {
		if (failure == null) {
			boolean accepted;
			try {
				accepted = runtime.isAccepted(result);
			}
			catch (Throwable ex) {
				context.registerFailure(null, result);
				return broken(runtime, context, ex, null);
			}
			if (accepted) {
				if (hedged != Decision.Turn.NOT_HEDGED) {
					// A copy that failed on a downstream's exhaustion recorded it; another copy won after all.
					context.clearStopReason();
				}
				succeeded(runtime, context, told, block, result, attempt, later);
				return Decision.ACCEPTED;
			}
		}
		else if (failure instanceof InterruptedException) {
			releaseAttempt(runtime, context);
			context.registerFailure(failure, null);
			onError(runtime, told, failure, later);
			return Decision.STOP_INTERRUPTED;
		}
		try {
			return decide(runtime, context, told, failure, result, hedged, later);
		}
		catch (Throwable ex) {
			return broken(runtime, context, ex, failure);
		}
	}

	private static void succeeded(RetryRuntime runtime, MutableRetryContext context, RetryContext told,
			ThreadCounters block, @Nullable Object result, int attempt, HedgeNotices.@Nullable Told later) {
		CircuitBreaker breaker = runtime.circuit;
		if (breaker != null) {
			long permit = context.permit;
			context.permit = CircuitBreaker.NO_PERMISSION;
			breaker.onSuccess(permit);
		}
		if (runtime.budget != null) {
			runtime.budget.onSuccess();
		}
		int retries = context.getRetryCount();
		boolean retried = retries > 0 || attempt > 1;
		if (!retried) {
			block.successWithoutRetry();
		}
		else {
			block.outcome(true, true);
			if (retries > 0) {
				// A hedge that won with no copy failed is told by its own event (HEDGE_WON).
				runtime.counters.event(RetryEventType.SUCCESS_AFTER_RETRY, retries + 1, null, 0);
			}
		}
		if (later != null) {
			context.outcome(CallOutcome.successful(retried));
			later.onSuccess(result);
			later.close(context);
		}
		else if (!runtime.listeners.isEmpty()) {
			context.outcome(CallOutcome.successful(retried));
			runtime.listeners.onSuccess(told, result);
			runtime.listeners.close(context, null);
		}
	}

	/** Tells the listeners of a failed attempt now, or records it in {@code later}. */
	private static void onError(RetryRuntime runtime, RetryContext told, @Nullable Throwable failure,
			HedgeNotices.@Nullable Told later) {
		if (later != null) {
			later.onError(failure);
		}
		else if (!runtime.listeners.isEmpty()) {
			runtime.listeners.onError(told, failure);
		}
	}

	/** Counts the failure into the context first, so that a hook that throws later still counts the attempt. */
	private static long decide(RetryRuntime runtime, MutableRetryContext context, RetryContext told,
			@Nullable Throwable failure, @Nullable Object result, Decision.Turn hedged, HedgeNotices.@Nullable Told later) {
		context.registerFailure(failure, result);
		boolean retryable = failure == null || runtime.classifier.isRetryable(failure);
		boolean downstreamExhausted = failure != null
				&& FailureClassifier.unwrap(failure) instanceof DownstreamExhaustedException;
		CircuitBreaker breaker = runtime.circuit;
		if (breaker != null) {
			long permit = context.permit;
			context.permit = CircuitBreaker.NO_PERMISSION;
			if (retryable) {
				breaker.onFailure(permit);
			}
			else {
				breaker.releasePermission(permit);
			}
		}
		if (runtime.budget != null && retryable) {
			runtime.budget.onFailure();
		}
		onError(runtime, told, failure, later);
		if (downstreamExhausted) {
			// Recorded now: a hedged call's copies in flight that fail later start no copy either.
			context.stopReason(StopReason.DOWNSTREAM_EXHAUSTED);
			return Decision.STOP_DOWNSTREAM_EXHAUSTED;
		}
		if (!retryable) {
			return Decision.STOP_NOT_RETRYABLE;
		}
		if (hedged != Decision.Turn.NOT_HEDGED && context.getStopReason() == StopReason.DOWNSTREAM_EXHAUSTED) {
			return Decision.STOP_DOWNSTREAM_EXHAUSTED;
		}
		int retries = context.getRetryCount();
		boolean attemptsLeft = (hedged == Decision.Turn.NOT_HEDGED) ? !runtime.attemptsUsedUp(retries)
				: (hedged == Decision.Turn.COPY_MAY_FOLLOW);
		if (context.isExhaustedOnly() || !attemptsLeft || (runtime.policy != null && !runtime.policy.canRetry(context))) {
			return Decision.STOP_EXHAUSTED;
		}
		long delay = (hedged == Decision.Turn.NOT_HEDGED) ? runtime.nextDelay(context, failure) : runtime.hedgeDelay(failure);
		// The time source is read only for a deadline; the event shares that reading when there is one.
		long now = RetryRuntime.NOT_READ;
		if (context.deadlineNanos != CallDeadlines.NONE) {
			now = runtime.timeSource.nanoTime();
			if (runtime.isPastDeadline(context, delay, now)) {
				return Decision.STOP_DEADLINE;
			}
		}
		if (breaker != null && breaker.getRemainingOpenNanos() > delay) {
			return Decision.STOP_CIRCUIT_OPEN;
		}
		if (runtime.budget != null && !runtime.budget.tryAcquireRetry()) {
			return Decision.STOP_BUDGET;
		}
		runtime.counters.eventAt(RetryEventType.RETRY, retries, failure, delay, now);
		if (later != null) {
			later.onRetry(delay);
		}
		else {
			runtime.listeners.onRetry(told, delay);
		}
		return delay;
	}

	/**
	 * A hook of the user's threw while the attempt's outcome was decided: the permit is given back if
	 * it was not reported yet, and the call is to end with {@code thrown}, the attempt's failure
	 * suppressed in it.
	 */
	private static long broken(RetryRuntime runtime, MutableRetryContext context, Throwable thrown,
			@Nullable Throwable failure) {
		releaseAttempt(runtime, context);
		if (failure != null && failure != thrown) {
			thrown.addSuppressed(failure);
		}
		context.rejected(thrown);
		return Decision.STOP_BROKEN;
	}

	/**
	 * Stateful calls: whether a failed attempt's failure is rethrown for the caller to roll back, by
	 * the state's rollback classifier. Never throws for user code.
	 * @param rollbackFor the state's rollback classifier
	 * @param failure the attempt's failure, already decided on by {@link #afterAttempt}
	 * @return {@link Decision#ROLL_BACK}, {@link Decision#HANDLE_HERE}, or {@link Decision#STOP_BROKEN} if the classifier threw
	 */
	static long rollback(RetryRuntime runtime, MutableRetryContext context,
			java.util.function.Predicate<Throwable> rollbackFor, Throwable failure) {
		try {
			return rollbackFor.test(failure) ? Decision.ROLL_BACK : Decision.HANDLE_HERE;
		}
		catch (Throwable ex) {
			return broken(runtime, context, ex, failure);
		}
	}

}
