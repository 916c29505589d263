package dev.retrykit.spring.boot.autoconfigure.aop;

import dev.retrykit.RetryListener;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A retried method whose calls are announced to {@link MethodListeners}, so that the listeners it names (or
 * the global ones) hear its calls and can read its invocation. Used only where the method names listeners or
 * the application has global ones: other methods pay nothing. Thread-safe.
 */
final class ListeningMethodRetry implements MethodRetry {

	private final MethodRetry delegate;

	private final MethodListeners listeners;

	private final RetryListener @Nullable [] chosen;

	ListeningMethodRetry(MethodRetry delegate, MethodListeners listeners, RetryListener @Nullable [] chosen) {
		this.delegate = delegate;
		this.listeners = listeners;
		this.chosen = chosen;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		this.listeners.announce(invocation, this.chosen);
		try {
			return this.delegate.invoke(invocation);
		}
		finally {
			this.listeners.clear();
		}
	}

}
