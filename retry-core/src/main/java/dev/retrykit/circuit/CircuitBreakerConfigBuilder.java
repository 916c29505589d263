package dev.retrykit.circuit;

import java.time.Duration;
import java.util.Objects;
import dev.retrykit.text.Durations;

/**
 * Builds a {@link CircuitBreakerConfig}. Each setter checks its argument at once; {@link #build()}
 * parses the trip expression. Obtain one from {@link CircuitBreakerConfig#builder()} or
 * {@link CircuitBreakerConfig#builder(CircuitBreakerConfig)}.
 *
 * <p>Not thread-safe; a built configuration never changes, whatever happens to its builder later.
 */
public final class CircuitBreakerConfigBuilder {

	private String trip = CircuitBreakerConfig.DEFAULT_TRIP;

	private Duration interval = CircuitBreakerConfig.DEFAULT_INTERVAL;

	private Duration timeout = CircuitBreakerConfig.DEFAULT_TIMEOUT;

	private int maxRequests = CircuitBreakerConfig.DEFAULT_MAX_REQUESTS;

	CircuitBreakerConfigBuilder() {
	}

	/**
	 * Sets the condition that opens the circuit, see {@link TripExpression} for the language.
	 * Default {@value CircuitBreakerConfig#DEFAULT_TRIP}. Parsed by {@link #build()}.
	 * @param trip the expression
	 * @return this builder
	 * @throws NullPointerException if {@code trip} is {@code null}
	 */
	public CircuitBreakerConfigBuilder trip(String trip) {
		this.trip = Objects.requireNonNull(trip, "trip must not be null");
		return this;
	}

	/**
	 * Sets how often the counts are cleared while closed; zero (the default) never clears them.
	 * @param interval the interval, zero or more
	 * @return this builder
	 * @throws NullPointerException if {@code interval} is {@code null}
	 * @throws IllegalArgumentException if {@code interval} is negative or too long to count in
	 * nanoseconds (about 292 years)
	 */
	public CircuitBreakerConfigBuilder interval(Duration interval) {
		Objects.requireNonNull(interval, "interval must not be null");
		checkNanos("interval", interval);
		if (interval.isNegative()) {
			throw new IllegalArgumentException("Invalid interval (" + Durations.format(interval)
					+ "): must be 0 (never clear the counts) or greater");
		}
		this.interval = interval;
		return this;
	}

	/**
	 * Sets how long the circuit stays open before it lets trial calls through. Default 60s.
	 * @param timeout the timeout, greater than zero
	 * @return this builder
	 * @throws NullPointerException if {@code timeout} is {@code null}
	 * @throws IllegalArgumentException if {@code timeout} is zero, negative or too long to count in
	 * nanoseconds (about 292 years)
	 */
	public CircuitBreakerConfigBuilder timeout(Duration timeout) {
		Objects.requireNonNull(timeout, "timeout must not be null");
		checkNanos("timeout", timeout);
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("Invalid timeout (" + Durations.format(timeout)
					+ "): must be greater than 0");
		}
		this.timeout = timeout;
		return this;
	}

	/**
	 * Sets how many trial calls may run at once while half-open; as many consecutive trial
	 * successes close the circuit. Default 1.
	 * @param maxRequests the number of trial calls, 1 or more
	 * @return this builder
	 * @throws IllegalArgumentException if {@code maxRequests} is less than 1
	 */
	public CircuitBreakerConfigBuilder maxRequests(int maxRequests) {
		if (maxRequests < 1) {
			throw new IllegalArgumentException("Invalid maxRequests (" + maxRequests + "): must be 1 or greater");
		}
		this.maxRequests = maxRequests;
		return this;
	}

	/**
	 * Builds the configuration.
	 * @return a new immutable configuration
	 * @throws IllegalArgumentException if the trip expression is invalid, see
	 * {@link TripExpression#parse(String)} for the message
	 */
	public CircuitBreakerConfig build() {
		return new CircuitBreakerConfig(TripExpression.parse(this.trip), this.interval, this.timeout, this.maxRequests);
	}

	private static void checkNanos(String property, Duration value) {
		try {
			value.toNanos();
		}
		catch (ArithmeticException ex) {
			throw new IllegalArgumentException("Invalid " + property + " (" + value
					+ "): must be at most 292 years (it is counted in nanoseconds)", ex);
		}
	}

}
