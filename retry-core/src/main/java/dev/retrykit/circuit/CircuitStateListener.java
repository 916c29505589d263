package dev.retrykit.circuit;

/**
 * Observes the state transitions of a {@link CircuitBreaker}.
 *
 * <p>A listener is called synchronously, after the transition, on the thread that caused it (a
 * caller recording an outcome, asking for permission or reading the state, or a thread using manual
 * control). Each transition is reported exactly once, but two transitions that happen at nearly the
 * same time on different threads may be reported concurrently and in either order: a listener that
 * needs the present state reads {@link CircuitBreaker#getState()}. Implementations must be
 * thread-safe and fast. Whatever a listener throws, an {@link Error} included, is caught, counted and logged; it never
 * affects the breaker, the caller or the other listeners.
 */
@FunctionalInterface
public interface CircuitStateListener {

	/**
	 * Called once for each transition.
	 * @param breaker the breaker whose state changed
	 * @param from the state before the transition
	 * @param to the state after the transition, never equal to {@code from}
	 */
	void onStateChange(CircuitBreaker breaker, CircuitState from, CircuitState to);

}
