package dev.retrykit.circuit;

import java.time.Duration;
import java.util.Objects;
import dev.retrykit.text.Durations;

/**
 * Thrown when a {@link CircuitBreaker} rejects a call: the circuit is open, or half-open with all
 * its trial calls in flight.
 *
 * <p>During an outage this exception is thrown for every rejected call, so it is made cheap: it
 * records <b>no stack trace</b> (where it is caught says where the call was made; the breaker's
 * internals would add nothing) and builds its message only when asked. It has no suppressed
 * exceptions; its cause, when it has one, is the failure of the call's previous attempt (for example
 * the one that opened the circuit). Immutable and thread-safe.
 */
public final class CircuitOpenException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** The remaining open time of a circuit forced open, which stays open until closed by hand. */
	public static final long FOREVER = Long.MAX_VALUE;

	/** The name of the breaker that rejected the call. */
	private final String name;

	/** The state of the breaker when it rejected the call. */
	private final CircuitState state;

	/** How long the circuit was to stay open, {@link #FOREVER} when forced open. */
	private final long remainingOpenNanos;

	/**
	 * Creates the exception; {@link CircuitBreaker#newCircuitOpenException(Throwable)} fills it in from a breaker.
	 * @param name the name of the breaker
	 * @param state its state when the call was rejected
	 * @param remainingOpenNanos how long it will stay open, 0 when it is not open (or about to let
	 * trial calls through), {@link #FOREVER} when it was forced open
	 */
	public CircuitOpenException(String name, CircuitState state, long remainingOpenNanos) {
		this(name, state, remainingOpenNanos, null);
	}

	/**
	 * Creates the exception for a call whose earlier attempt failed, with that failure as cause.
	 * @param name the name of the breaker
	 * @param state its state when the call was rejected
	 * @param remainingOpenNanos how long it will stay open, as for the other constructor
	 * @param cause the call's last failure before the rejection (the real downstream failure), or
	 * {@code null} when the call was rejected before its first attempt
	 */
	public CircuitOpenException(String name, CircuitState state, long remainingOpenNanos,
			@org.jspecify.annotations.Nullable Throwable cause) {
		super(null, cause, false, false);
		this.name = Objects.requireNonNull(name, "name must not be null");
		this.state = Objects.requireNonNull(state, "state must not be null");
		this.remainingOpenNanos = Math.max(0, remainingOpenNanos);
	}

	/** {@return the name of the breaker that rejected the call} */
	public String getName() {
		return this.name;
	}

	/** {@return the state of the breaker when it rejected the call} */
	public CircuitState getState() {
		return this.state;
	}

	/**
	 * {@return how long the circuit was to stay open when the call was rejected: zero when half-open,
	 * {@code Duration.ofNanos(Long.MAX_VALUE)} (about 292 years) when forced open}
	 */
	public Duration getRemainingOpen() {
		return Duration.ofNanos(this.remainingOpenNanos);
	}

	/** {@return whether the circuit had been forced open, see {@link CircuitBreaker#forceOpen()}} */
	public boolean isForcedOpen() {
		return this.state == CircuitState.OPEN && this.remainingOpenNanos == FOREVER;
	}

	/**
	 * @return for example {@code Circuit breaker 'inventory' is OPEN; calls are rejected for another 12.3s}
	 */
	@Override
	public String getMessage() {
		String prefix = "Circuit breaker '" + this.name + "' ";
		switch (this.state) {
			case OPEN:
				if (isForcedOpen()) {
					return prefix + "was forced OPEN; calls are rejected until it is closed";
				}
				if (this.remainingOpenNanos == 0) {
					return prefix + "is OPEN; its timeout has passed, the next call will be a trial call";
				}
				return prefix + "is OPEN; calls are rejected for another " + Durations.remaining(this.remainingOpenNanos);
			case HALF_OPEN:
				return prefix + "is HALF_OPEN; calls are rejected while its trial calls are in progress";
			default:
				return prefix + "rejected the call while changing state; it is now " + this.state;
		}
	}

}
