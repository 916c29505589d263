package dev.retrykit.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionStage;

import dev.retrykit.context.RetryContext;

/**
 * Whether and how a copy after the first of a hedged call starts. A copy started by the delay needs,
 * in this order (gRFC A6's throttling, Finagle's extra-load bound): hedging not switched off since the
 * call started, the call's deadline not passed, the retry budget's leave to retry (no token is taken: a
 * copy costs one only if it fails, as every failed attempt does), room in the instance's
 * {@code max-extra-load}, and a circuit-breaker permit. A copy started by a failure is a retry that the
 * lifecycle already let through (deadline, budget); it needs room in {@code max-extra-load} and a permit.
 * Neither starts once the call's context is exhausted-only ({@link RetryContext#setExhaustedOnly()}, which a
 * listener may call as a copy's failure is told after the decision). A refused copy is not sent; the call
 * waits for its copies in flight, or, with none, ends. Stateless.
 */
final class HedgeStarts {

	private HedgeStarts() {
	}

	/**
	 * Starts the next copy of {@code race}, unless the call ended or started all: {@code byDelay} the delay
	 * passed, else a retry; {@code fromTimer} when the timer handed the start over.
	 */
	static <T> void start(HedgeRace<T> race, boolean byDelay, boolean fromTimer) {
		ContextStack stack = ContextStack.get();
		ThreadCounters block = stack.counters(race.runtime);
		// An async copy's beforeAttempt and attemptReturned are told here, around its supplier, after the lock.
		HedgeNotices notices = race.copiesTellListeners() ? null : race.notices;
		HedgeCopy<T> copy;
		RetryContext told;
		long ending;
		synchronized (race) {
			if (fromTimer) {
				race.startPending = false;
			}
			if (race.ended || race.started >= race.maxCopies
					|| (byDelay && (race.hedgesRefused || race.retryPending))) {
				return;
			}
			if (!byDelay) {
				race.retryPending = false;
			}
			told = HedgeCopyContext.told(race.runtime, race.context, race.started + 1);
			ending = acquire(race, block, told, byDelay);
			if (ending == 0) {
				copy = race.newCopy(told);
				if (notices != null) {
					notices.enter();
				}
			}
			else if (byDelay || race.inFlight > 0) {
				race.hedgesRefused = true;
				race.hedges.counters.hedgeRefused();
				copy = null;
			}
			else {
				// A retry refused with nothing in flight: the call ends, as any call would.
				race.ended = true;
				HedgeWaits.unwatch(race);
				copy = null;
			}
		}
		if (copy == null) {
			if (ending != 0 && !byDelay && race.ended) {
				race.call.end(block, ending, null);
			}
			else {
				HedgeWaits.rewatch(race);
			}
			return;
		}
		if (notices != null) {
			tellAround(race, copy, notices);
			return;
		}
		CompletionStage<T> stage = race.runCopy(copy);
		if (!race.copiesTellListeners()) {
			// No listener as the call started; one added since was told beforeAttempt by acquire, under the lock.
			CallLifecycle.attemptReturned(race.runtime, copy.told);
		}
		race.started(copy, stage, null);
	}

	/**
	 * Runs an async copy between its listeners' {@code beforeAttempt} and {@code attemptReturned}, on this
	 * thread and outside the race's lock. Its {@code beforeAttempt} is a telling of {@code notices} (entered
	 * under the lock as the copy started), which the call's ending waits for; its supplier is not, so that
	 * no copy's slow start holds up the end of the call. A copy settled while its {@code beforeAttempt} ran
	 * (the call ended, it timed out) does not run its supplier, and is told {@code attemptReturned} at once.
	 */
	private static <T> void tellAround(HedgeRace<T> race, HedgeCopy<T> copy, HedgeNotices notices) {
		Listeners listeners = race.runtime.listeners;
		boolean settled = true;
		try {
			listeners.beforeAttempt(copy.told);
			settled = race.isSettled(copy);
			if (settled) {
				listeners.attemptReturned(copy.told);
			}
		}
		finally {
			notices.exit();
		}
		if (settled) {
			race.started(copy, null, new CancellationException("Copy " + copy.number + " of retry '"
					+ race.runtime.name + "' was settled before it started"));
			return;
		}
		CompletionStage<T> stage = race.runCopy(copy);
		notices.attemptReturned(listeners, copy.told);
		race.started(copy, stage, null);
	}

	/**
	 * Starts the first copy of a blocking call ({@link HedgedBlockingCall}), whose every copy runs on the
	 * executor: it needs only a circuit-breaker permit; refused, the call ends as any call would.
	 */
	static <T> void startFirst(HedgeRace<T> race) {
		ThreadCounters block = ContextStack.get().counters(race.runtime);
		HedgeCopy<T> copy = null;
		synchronized (race) {
			RetryContext told = HedgeCopyContext.told(race.runtime, race.context, 1);
			if (CallLifecycle.acquireAttempt(race.runtime, race.context, block, told, false)) {
				copy = race.newCopy(told);
			}
			else {
				race.ended = true;
			}
		}
		if (copy == null) {
			race.call.end(block, Decision.STOP_CIRCUIT_OPEN, null);
			return;
		}
		race.started(copy, race.runCopy(copy), null);
	}

	/**
	 * Under the race's lock: acquires what the copy needs.
	 * @return 0 when it may start, else the reason a call with nothing in flight would end with
	 */
	private static long acquire(HedgeRace<?> race, ThreadCounters block, RetryContext told, boolean byDelay) {
		RetryRuntime runtime = race.runtime;
		Hedges hedges = race.hedges;
		if (race.context.isExhaustedOnly()) {
			// Set by a listener as a copy's failure was told (after the decision that let a copy follow), or by a copy:
			// no copy starts after it, as no retry does.
			return Decision.STOP_EXHAUSTED;
		}
		if (byDelay) {
			if (hedges.isSwitchedOff() || runtime.isPastDeadline(race.context, 0)) {
				return Decision.STOP_DEADLINE;
			}
			if (runtime.budget != null && !runtime.budget.tryAcquireRetry()) {
				return Decision.STOP_BUDGET;
			}
		}
		if (!hedges.load.tryAcquire(hedges.timeSource.nanoTime())) {
			return Decision.STOP_BUDGET;
		}
		boolean tellHere = !race.copiesTellListeners() && race.notices == null;
		if (!CallLifecycle.acquireAttempt(runtime, race.context, block, told, tellHere)) {
			return Decision.STOP_CIRCUIT_OPEN;
		}
		return 0;
	}

}
