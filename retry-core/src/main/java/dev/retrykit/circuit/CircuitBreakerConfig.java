package dev.retrykit.circuit;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import dev.retrykit.text.Durations;

/**
 * The configuration of a {@link CircuitBreaker}: when it trips, how long it stays open and how it
 * tests recovery. Dapr's semantics and defaults.
 *
 * <p>Immutable and thread-safe; built and validated by {@link CircuitBreakerConfigBuilder}. Start
 * from the defaults with {@link #builder()}, or from an existing configuration with
 * {@link #builder(CircuitBreakerConfig)} to derive a variant (the clean way to inherit a shared base
 * configuration).
 */
public final class CircuitBreakerConfig {

	/** The default {@link #getTrip() trip} expression: {@value}. */
	public static final String DEFAULT_TRIP = "consecutiveFailures > 5";

	/** The default {@link #getInterval() interval}: zero, the counts are never cleared. */
	public static final Duration DEFAULT_INTERVAL = Duration.ZERO;

	/** The default {@link #getTimeout() timeout}: 60 seconds. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

	/** The default {@link #getMaxRequests() maxRequests}: {@value}. */
	public static final int DEFAULT_MAX_REQUESTS = 1;

	private static final CircuitBreakerConfig DEFAULTS = builder().build();

	private final TripExpression trip;

	private final Duration interval;

	private final Duration timeout;

	private final int maxRequests;

	CircuitBreakerConfig(TripExpression trip, Duration interval, Duration timeout, int maxRequests) {
		this.trip = trip;
		this.interval = interval;
		this.timeout = timeout;
		this.maxRequests = maxRequests;
	}

	/** {@return a builder holding the defaults} */
	public static CircuitBreakerConfigBuilder builder() {
		return new CircuitBreakerConfigBuilder();
	}

	/**
	 * {@return a builder holding the values of {@code base}}
	 * @param base the configuration to start from
	 * @throws NullPointerException if {@code base} is {@code null}
	 */
	public static CircuitBreakerConfigBuilder builder(CircuitBreakerConfig base) {
		Objects.requireNonNull(base, "base must not be null");
		return new CircuitBreakerConfigBuilder()
				.trip(base.getTrip())
				.interval(base.interval)
				.timeout(base.timeout)
				.maxRequests(base.maxRequests);
	}

	/** {@return the configuration with every default} */
	public static CircuitBreakerConfig ofDefaults() {
		return DEFAULTS;
	}

	/**
	 * {@return the trip expression as written, evaluated on each failure while closed; the circuit
	 * opens when it is true. Default {@value #DEFAULT_TRIP}.}
	 */
	public String getTrip() {
		return this.trip.toString();
	}

	/** {@return the parsed {@link #getTrip() trip} expression} */
	public TripExpression getTripExpression() {
		return this.trip;
	}

	/**
	 * {@return how often the counts are cleared while the circuit is closed, so that old failures
	 * are forgotten; zero (the default) means never. Clearing is lazy: it happens when an outcome is
	 * recorded after the interval has passed.}
	 */
	public Duration getInterval() {
		return this.interval;
	}

	/** {@return how long the circuit stays open before it lets trial calls through; default 60s} */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * {@return how many trial calls may run at once while half-open, and how many consecutive trial
	 * successes close the circuit; default 1}
	 */
	public int getMaxRequests() {
		return this.maxRequests;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof CircuitBreakerConfig)) {
			return false;
		}
		CircuitBreakerConfig that = (CircuitBreakerConfig) other;
		return this.trip.equals(that.trip) && this.interval.equals(that.interval)
				&& this.timeout.equals(that.timeout) && this.maxRequests == that.maxRequests;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.trip, this.interval, this.timeout, this.maxRequests);
	}

	/** @return the effective configuration, e.g. {@code CircuitBreakerConfig{trip='consecutiveFailures > 5', interval=0s, timeout=1m, maxRequests=1}} */
	@Override
	public String toString() {
		return "CircuitBreakerConfig{trip='" + this.trip + "', interval=" + Durations.format(this.interval)
				+ ", timeout=" + Durations.format(this.timeout) + ", maxRequests=" + this.maxRequests + "}";
	}

}
