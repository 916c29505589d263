package dev.retrykit.circuit;

/**
 * A read-only snapshot of a {@link CircuitBreaker}'s counts, taken by
 * {@link CircuitBreaker#getMetrics()}.
 *
 * <p>While closed the counts are those of the current window (see
 * {@link CircuitBreakerConfig#getInterval()}); while open they are zero; while half-open
 * {@code totalSuccesses} counts the trial successes so far and {@code trialCallsInFlight} the trial
 * calls running. Under concurrent updates the fields are read one after the other, not atomically.
 * Immutable and thread-safe.
 *
 * @param state the state when the snapshot was taken
 * @param consecutiveFailures failures since the last success
 * @param totalFailures failures recorded in the window
 * @param totalSuccesses successes recorded in the window
 * @param trialCallsInFlight half-open only: trial calls admitted and not yet finished
 */
public record CircuitBreakerMetrics(CircuitState state, long consecutiveFailures, long totalFailures,
		long totalSuccesses, int trialCallsInFlight) {

	/** {@return calls whose outcome was recorded in the window: {@code totalFailures + totalSuccesses}} */
	public long requests() {
		return this.totalFailures + this.totalSuccesses;
	}

	/** {@return {@code totalFailures * 100 / requests}, a percentage from 0 to 100, 0 when there are no requests} */
	public double failureRate() {
		long requests = requests();
		return (requests == 0) ? 0.0 : this.totalFailures * 100.0 / requests;
	}

}
