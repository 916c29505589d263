package dev.retrykit.circuit;

import java.lang.System.Logger.Level;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The listeners of one breaker. Registration is rare and notification follows a transition, so a
 * copy-on-write list serves both without locks. A failing listener is isolated: whatever it throws, an
 * {@link Error} included, is counted and logged, and the remaining listeners are still called.
 */
final class CircuitStateListeners {

	private static final System.Logger LOGGER = System.getLogger(CircuitBreaker.class.getName());

	private final CopyOnWriteArrayList<CircuitStateListener> listeners = new CopyOnWriteArrayList<>();

	private final AtomicLong failures = new AtomicLong();

	void add(CircuitStateListener listener) {
		this.listeners.add(listener);
	}

	boolean remove(CircuitStateListener listener) {
		return this.listeners.remove(listener);
	}

	long failures() {
		return this.failures.get();
	}

	void notify(CircuitBreaker breaker, CircuitState from, CircuitState to) {
		for (CircuitStateListener listener : this.listeners) {
			try {
				listener.onStateChange(breaker, from, to);
			}
			catch (Throwable ex) {
				// An Error too: the transition has happened, and the caller's outcome must not change.
				this.failures.incrementAndGet();
				LOGGER.log(Level.WARNING, () -> "State listener " + listener + " of circuit breaker '"
						+ breaker.getName() + "' threw on " + from + " -> " + to + "; the breaker is unaffected", ex);
			}
		}
	}

}
