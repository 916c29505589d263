package dev.retrykit.internal;

import dev.retrykit.circuit.CircuitBreaker;

/**
 * How the copies of a hedged call ({@link HedgeRace}) are settled as the call ends: each copy in flight
 * gives its circuit permit back once and counts as lost (another copy won) or cancelled (the call ended
 * without a winner), and its stage is cancelled outside the race's lock; and how a caller's future
 * completed from outside ends the race. Stateless.
 */
final class HedgeSettling {

	private HedgeSettling() {
	}

	/**
	 * Under the lock, as the call ends: settles every copy in flight, giving its permit back, and counts
	 * the hedges among them as lost (another copy won) or cancelled (the call ended without a winner).
	 * @return how many copies were settled, whose stages {@link #cancelSettled} is to cancel
	 */
	static <T> int settleInFlight(HedgeRace<T> race, boolean lost) {
		int settled = 0;
		int hedgesSettled = 0;
		for (HedgeCopy<T> copy = race.copiesStarted; copy != null; copy = copy.previous) {
			if (!copy.settled) {
				copy.settled = true;
				copy.cancelled = true;
				race.inFlight--;
				race.context.permit = copy.permit;
				copy.permit = CircuitBreaker.NO_PERMISSION;
				CallLifecycle.releaseAttempt(race.runtime, race.context);
				settled++;
				if (copy.number > 1) {
					hedgesSettled++;
				}
			}
		}
		if (hedgesSettled > 0) {
			if (lost) {
				race.hedges.counters.hedgesLost(hedgesSettled);
			}
			else {
				race.hedges.counters.hedgesCancelled(hedgesSettled);
			}
		}
		return settled;
	}

	/** Cancels the settled copies' stages; by the thread that ended the call (the list no longer changes). */
	static <T> void cancelSettled(HedgeRace<T> race) {
		for (HedgeCopy<T> copy = race.copiesStarted; copy != null; copy = copy.previous) {
			if (copy.cancelled) {
				AttemptStages.cancel(copy.stage, race.hedges.interruptLosers, race.runtime.name);
			}
		}
	}

	/**
	 * The caller's future was completed from outside ({@code cancel}, {@code complete},
	 * {@code orTimeout}): no copy starts any more; the copies in flight give their permits back, count as
	 * cancelled and are cancelled.
	 * @return whether this ended the race (it had not ended otherwise before)
	 */
	static boolean endFromOutside(HedgeRace<?> race) {
		synchronized (race) {
			if (race.ended) {
				return false;
			}
			race.ended = true;
			HedgeWaits.unwatch(race);
			settleInFlight(race, false);
		}
		cancelSettled(race);
		return true;
	}

}
