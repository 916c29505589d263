package dev.retrykit.spring.boot.observation;

import java.util.Objects;

import dev.retrykit.RetryTemplateBuilder;
import dev.retrykit.RetryTemplateCustomizer;

/**
 * Registers a {@link RetryObservationListener} on every instance whose observations are on, and on
 * no other: with no handler in the registry, a no-op registry, or {@code retry} observations turned
 * off by the registry's predicates, an instance gets no listener and its calls keep their short,
 * allocation-free path. Thread-safe: templates may be created at run time, when a name is first used.
 */
public final class RetryObservationCustomizer implements RetryTemplateCustomizer {

	private final RetryObservationListener listener;

	/**
	 * @param listener the listener to register
	 */
	public RetryObservationCustomizer(RetryObservationListener listener) {
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	@Override
	public void customize(String name, RetryTemplateBuilder builder) {
		if (this.listener.isObserving(name)) {
			builder.listener(this.listener);
		}
	}

}
