package dev.retrykit.spring.boot.actuate.endpoint;

import java.time.Duration;

import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerMetrics;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code retries} endpoint and health contributor report about a circuit breaker, read in one
 * place so that the two always agree. The state and counts come from one
 * {@link CircuitBreaker#getMetrics() snapshot}, which also applies a due timeout (open to half-open);
 * {@code forcedOpen} and {@code remainingOpen} are read right after it and only describe an
 * {@code OPEN} snapshot, so a concurrent change can make the reading stale but never self-contradictory
 * (never forced open while half-open, never both forced open and timing out). Public for the health
 * indicator, which reads circuits the same way. Immutable and thread-safe.
 *
 * @param metrics the snapshot: state and counts
 * @param forcedOpen whether the circuit is open and was opened by hand
 * @param remainingOpen how long until an open circuit that was not forced open lets trial calls
 * through, in the form a duration property takes; otherwise {@code null}
 */
public record CircuitSnapshot(CircuitBreakerMetrics metrics, boolean forcedOpen, @Nullable String remainingOpen) {

	/**
	 * @param breaker the circuit breaker to read
	 * @return its current reading
	 */
	public static CircuitSnapshot of(CircuitBreaker breaker) {
		CircuitBreakerMetrics metrics = breaker.getMetrics();
		boolean open = metrics.state() == CircuitState.OPEN;
		boolean forced = open && breaker.isForcedOpen();
		String remaining = (open && !forced) ? Durations.approximate(Duration.ofNanos(breaker.getRemainingOpenNanos()))
				: null;
		return new CircuitSnapshot(metrics, forced, remaining);
	}

	/** @return the state when the snapshot was taken */
	public CircuitState state() {
		return this.metrics.state();
	}

	/** @return the endpoint's {@code circuit} object */
	RetryInstanceDescriptor.Circuit toDescriptor() {
		return new RetryInstanceDescriptor.Circuit(state().name(), this.forcedOpen, this.remainingOpen,
				this.metrics.consecutiveFailures(), this.metrics.totalFailures(), this.metrics.totalSuccesses(),
				this.metrics.failureRate());
	}

}
