package dev.retrykit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

import dev.retrykit.RetryEventType;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * The times a hedged call ({@link HedgeRace}) waits for, and what happens when they come: its next copy
 * (the hedging delay after the latest copy started, or a failure's delay hint), and each copy's timeout
 * (its attempt-timeout or the call's deadline, whichever comes first). The call is on its instance's
 * {@link HedgeTimer} while it waits for one, and leaves it at once when it ends ({@link #unwatch}). At
 * its time a copy times out as a copy failed with a {@link TimeoutException}, its stage cancelled; a copy
 * that falls due is handed to the executor to start on its own ({@link Hedges#startLater}). Works under
 * the race's lock; stateless.
 */
final class HedgeWaits {

	private HedgeWaits() {
	}

	/** Plans the copy after {@code copy}: due the hedging delay after it started (now, with no delay). */
	static <T> void hedgeAfter(HedgeRace<T> race, HedgeCopy<T> copy) {
		long delay = race.hedges.delayNanos();
		boolean now = false;
		synchronized (race) {
			if (!race.ended && race.started < race.maxCopies && !race.hedgesRefused && !race.retryPending
					&& !race.startPending && copy.number == race.started) {
				long due = copy.startNanos + delay;
				race.dueNanos = (due < copy.startNanos) ? Long.MAX_VALUE : due;
				now = delay == 0;
			}
		}
		if (now) {
			race.startCopy(true, false);
		}
		else {
			rewatch(race);
		}
	}

	/**
	 * Under the lock: the next time the call waits for (its next copy, a copy's timeout), or
	 * {@code Long.MAX_VALUE} when none.
	 */
	private static <T> long nextTimeNanos(HedgeRace<T> race) {
		if (race.ended) {
			return Long.MAX_VALUE;
		}
		long next = Long.MAX_VALUE;
		if (!race.startPending && race.started < race.maxCopies && (race.retryPending || !race.hedgesRefused)) {
			next = race.dueNanos;
		}
		for (HedgeCopy<T> copy = race.copiesStarted; copy != null; copy = copy.previous) {
			if (!copy.settled && !copy.timingOut) {
				next = Math.min(next, copy.timeoutNanos);
			}
		}
		return next;
	}

	/** Has the timer watch the call for its next time, if it waits for one. */
	static void rewatch(HedgeRace<?> race) {
		HedgeTimer.@Nullable Watch added = null;
		long next;
		synchronized (race) {
			next = nextTimeNanos(race);
			if (next == Long.MAX_VALUE) {
				return;
			}
			if (race.watch == null) {
				added = new HedgeTimer.Watch(race);
				race.watch = added;
			}
		}
		if (added != null) {
			race.hedges.timer.watch(added, next);
		}
		else {
			race.hedges.timer.rearm(next);
		}
	}

	/** Under the lock, as the call ends: the timer's node lets go of the call at once. */
	static void unwatch(HedgeRace<?> race) {
		HedgeTimer.Watch node = race.watch;
		if (node != null) {
			node.race = null;
			race.watch = null;
		}
	}

	/**
	 * A pass of the hedging timer: times out the copies whose time came, hands the start of a copy that
	 * is due to the executor.
	 * @return the call's next time, or {@link HedgeTimer#UNWATCHED} when it waits for none
	 */
	static <T> long timerPassed(HedgeRace<T> race, HedgeTimer.Watch node, long nowNanos) {
		List<HedgeCopy<T>> timedOut = null;
		boolean start = false;
		boolean retry = false;
		synchronized (race) {
			if (race.watch != node || race.ended) {
				return HedgeTimer.UNWATCHED;
			}
			for (HedgeCopy<T> copy = race.copiesStarted; copy != null; copy = copy.previous) {
				if (!copy.settled && !copy.timingOut && copy.timeoutNanos <= nowNanos) {
					timedOut = (timedOut != null) ? timedOut : new ArrayList<>(2);
					timedOut.add(copy);
					// With listeners, told where the timeout ends: off the timer's thread (Hedges#timeOutLater).
					copy.timingOut = race.notices != null;
				}
			}
			if (!race.startPending && race.started < race.maxCopies && race.dueNanos <= nowNanos
					&& (race.retryPending || !race.hedgesRefused)) {
				race.startPending = true;
				race.dueNanos = Long.MAX_VALUE;
				retry = race.retryPending;
				start = true;
			}
		}
		if (timedOut != null) {
			for (HedgeCopy<T> copy : timedOut) {
				if (copy.timingOut) {
					race.hedges.timeOutLater(race, copy);
				}
				else {
					timeOut(race, copy);
				}
			}
		}
		if (start) {
			race.hedges.startLater(race, !retry);
		}
		synchronized (race) {
			long next = nextTimeNanos(race);
			if (race.watch != node || next == Long.MAX_VALUE) {
				if (race.watch == node) {
					race.watch = null;
				}
				return HedgeTimer.UNWATCHED;
			}
			return Math.max(next, nowNanos + 1);
		}
	}

	/** A copy's time came: it fails with a {@link TimeoutException} and its stage is cancelled. */
	static <T> void timeOut(HedgeRace<T> race, HedgeCopy<T> copy) {
		boolean deadline = copy.timeoutNanos == race.deadlineNanos;
		TimeoutException timeout = new TimeoutException("Copy " + copy.number + " of retry '" + race.runtime.name
				+ "' timed out after " + Durations.formatNanos(copy.timeoutNanos - copy.startNanos)
				+ (!deadline ? " (attempt-timeout)" : (race.context.deadline() != null) ? " (the call's deadline)"
						: " (the call's max-duration)"));
		race.runtime.counters.event(RetryEventType.ATTEMPT_TIMEOUT, copy.number, timeout, 0);
		race.copyEnded(copy, null, timeout, true);
		AttemptStages.cancel(copy.stage, race.hedges.interruptLosers, race.runtime.name);
	}

	/** A due copy's start was refused (the scheduler or its executor): no more copies by the delay. */
	static void startRefused(HedgeRace<?> race, RejectedExecutionException reason) {
		timerStopped(race, null, reason);
	}

	/** The timer will not start this call's copies any more: its copies in flight end it, or it ends now. */
	static void timerStopped(HedgeRace<?> race, HedgeTimer.@Nullable Watch node, RejectedExecutionException reason) {
		ThreadCounters block = race.runtime.counters.forCurrentThread();
		synchronized (race) {
			if (node != null && race.watch == node) {
				race.watch = null;
			}
			race.startPending = false;
			if (race.ended) {
				return;
			}
			if (race.inFlight > 0) {
				race.hedgesRefused = true;
				race.retryPending = false;
				return;
			}
			race.ended = true;
			unwatch(race);
		}
		race.call.end(block, Decision.STOP_SCHEDULER_STOPPED, reason);
	}

}
