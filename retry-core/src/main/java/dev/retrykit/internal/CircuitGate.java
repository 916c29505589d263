package dev.retrykit.internal;

import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What the engine asks of a circuit breaker: permits that tie an attempt's outcome to the state that
 * admitted it, and what it needs to decide and report. {@code dev.retrykit.circuit.CircuitBreaker}
 * implements it in a private class and hands it over through {@link #of}: the permit protocol is
 * the engine's, not public API, and the engine never names the circuit package, so the packages
 * form no cycle. Implementations are thread-safe and allocate nothing but on transitions.
 */
public interface CircuitGate {

	/** {@link #acquire()}'s answer when the attempt is refused. Permits are never negative. */
	long NO_PERMISSION = -1L;

	/**
	 * Asks for a permit to run one attempt.
	 * @return a permit (zero or more) for one attempt, or {@link #NO_PERMISSION} when it is refused
	 */
	long acquire();

	/**
	 * Reports that the attempt holding {@code permit} succeeded.
	 * @param permit an attempt's permit; ignored when stale or {@link #NO_PERMISSION}
	 */
	void onSuccess(long permit);

	/**
	 * Reports that the attempt holding {@code permit} failed.
	 * @param permit an attempt's permit; ignored when stale or {@link #NO_PERMISSION}
	 */
	void onFailure(long permit);

	/**
	 * Gives back an attempt's permit without reporting an outcome.
	 * @param permit an attempt's permit given back without an outcome; ignored when stale
	 */
	void release(long permit);

	/** {@return nanoseconds until an open circuit lets trial calls through; 0 unless open} */
	long remainingOpenNanos();

	/** {@return whether the circuit was forced open by hand} */
	boolean isForcedOpen();

	/**
	 * Makes the exception that ends a call whose attempt the circuit refused.
	 * @param cause the call's failure before the rejection, or {@code null}
	 * @return the exception that tells a caller the circuit refused its attempt now
	 */
	RuntimeException rejection(@Nullable Throwable cause);

	/**
	 * {@return whether it is a rejection made by {@link #rejection}}
	 * @param failure a call's last failure
	 */
	boolean isRejection(Throwable failure);

	/**
	 * The gate of a breaker.
	 * @param breaker a {@code dev.retrykit.circuit.CircuitBreaker}
	 * @return its gate
	 */
	static CircuitGate of(Object breaker) {
		return CircuitGateRegistry.gates.apply(Objects.requireNonNull(breaker, "breaker must not be null"));
	}

	/**
	 * Called once, by the breaker class as it initializes: a breaker object exists only after that,
	 * so {@link #of} always finds the accessor.
	 * @param gates the breaker's accessor
	 */
	static void register(Function<Object, CircuitGate> gates) {
		CircuitGateRegistry.gates = Objects.requireNonNull(gates, "gates must not be null");
	}

}
