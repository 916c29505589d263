package dev.retrykit.circuit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One period of a {@link CircuitBreaker}'s life: a state, the generation it belongs to, when it
 * began, and the counts recorded during it.
 *
 * <p>A breaker never resets counts in place: a transition, or the clearing of counts after an
 * interval, publishes a fresh window. A thread that still holds the old window can only update
 * counts nobody reads any more, so resets are atomic without locks. State, generation, start and
 * the forced flag are final; the counts are updated with atomic operations.
 *
 * <p>The generation changes with every state transition but not when an interval clears the counts
 * of a closed circuit: a call admitted just before the clearing still reports into the new window.
 */
final class CircuitWindow {

	private static final VarHandle CONSECUTIVE_FAILURES;

	private static final VarHandle TOTAL_FAILURES;

	private static final VarHandle TOTAL_SUCCESSES;

	private static final VarHandle TRIALS;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			CONSECUTIVE_FAILURES = lookup.findVarHandle(CircuitWindow.class, "consecutiveFailures", long.class);
			TOTAL_FAILURES = lookup.findVarHandle(CircuitWindow.class, "totalFailures", long.class);
			TOTAL_SUCCESSES = lookup.findVarHandle(CircuitWindow.class, "totalSuccesses", long.class);
			TRIALS = lookup.findVarHandle(CircuitWindow.class, "trials", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final CircuitState state;

	final long generation;

	/**
	 * What {@link CircuitBreaker#acquirePermission()} hands out for this window: the generation and
	 * the state ordinal in the low two bits, never negative.
	 */
	final long permit;

	/** The {@code TimeSource.nanoTime()} at which the window began. */
	final long sinceNanos;

	/** Whether the circuit was opened by hand and stays open until closed by hand. */
	final boolean forced;

	private volatile long consecutiveFailures;

	private volatile long totalFailures;

	private volatile long totalSuccesses;

	/** Half-open only: trial successes in the high 32 bits, trial calls in flight in the low 32. */
	private volatile long trials;

	CircuitWindow(CircuitState state, long generation, long sinceNanos, boolean forced) {
		this.state = state;
		this.generation = generation;
		this.permit = (generation << 2) | state.ordinal();
		this.sinceNanos = sinceNanos;
		this.forced = forced;
	}

	/** Counts a success of a closed circuit. */
	void recordSuccess() {
		TOTAL_SUCCESSES.getAndAdd(this, 1L);
		// Read before writing: in a healthy circuit the field stays 0 and its cache line stays shared.
		if (this.consecutiveFailures != 0) {
			this.consecutiveFailures = 0;
		}
	}

	/**
	 * Counts a failure of a closed circuit and evaluates the trip expression over the new counts.
	 * @return whether the circuit should open
	 */
	boolean recordFailure(TripExpression trip) {
		long failures = (long) TOTAL_FAILURES.getAndAdd(this, 1L) + 1;
		long consecutive = (long) CONSECUTIVE_FAILURES.getAndAdd(this, 1L) + 1;
		long successes = this.totalSuccesses;
		return trip.evaluate(consecutive, failures, successes, failures + successes);
	}

	/** Admits a trial call if fewer than {@code maxRequests} are in flight. */
	boolean tryAdmitTrial(int maxRequests) {
		for (;;) {
			long current = this.trials;
			if (inFlight(current) >= maxRequests) {
				return false;
			}
			if (TRIALS.compareAndSet(this, current, current + 1)) {
				return true;
			}
		}
	}

	/** Gives back a trial slot without an outcome; {@code false} if no trial was in flight. */
	boolean releaseTrial() {
		for (;;) {
			long current = this.trials;
			if (inFlight(current) == 0) {
				return false;
			}
			if (TRIALS.compareAndSet(this, current, current - 1)) {
				return true;
			}
		}
	}

	/**
	 * Ends a trial call with a success.
	 * @return the trial successes so far, or -1 if no trial was in flight (a stale outcome)
	 */
	int completeTrialWithSuccess() {
		for (;;) {
			long current = this.trials;
			if (inFlight(current) == 0) {
				return -1;
			}
			long next = current - 1 + (1L << 32);
			if (TRIALS.compareAndSet(this, current, next)) {
				return (int) (next >>> 32);
			}
		}
	}

	/** @return a snapshot of the counts; in half-open, successes are the trial successes */
	CircuitBreakerMetrics snapshot() {
		if (this.state == CircuitState.HALF_OPEN) {
			long current = this.trials;
			return new CircuitBreakerMetrics(this.state, 0, 0, current >>> 32, inFlight(current));
		}
		return new CircuitBreakerMetrics(this.state, this.consecutiveFailures, this.totalFailures, this.totalSuccesses, 0);
	}

	private static int inFlight(long trials) {
		return (int) (trials & 0xFFFF_FFFFL);
	}

}
