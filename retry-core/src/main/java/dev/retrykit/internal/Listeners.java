package dev.retrykit.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;

import dev.retrykit.RetryContext;
import dev.retrykit.RetryListener;
import org.jspecify.annotations.Nullable;

/**
 * Calls an instance's listeners so that a failing listener never breaks a call: its exception is
 * caught, counted and logged. Immutable and thread-safe.
 */
final class Listeners {

	private static final System.Logger LOGGER = System.getLogger("dev.retrykit.RetryListener");

	private final RetryListener[] listeners;

	private final RetryCounters counters;

	private final String name;

	Listeners(String name, RetryListener[] listeners, RetryCounters counters) {
		this.name = name;
		this.listeners = listeners;
		this.counters = counters;
	}

	boolean isEmpty() {
		return this.listeners.length == 0;
	}

	boolean open(RetryContext context) {
		for (RetryListener listener : this.listeners) {
			try {
				if (!listener.open(context)) {
					return false;
				}
			}
			catch (Throwable ex) {
				failed(listener, "open", ex);
			}
		}
		return true;
	}

	void beforeAttempt(RetryContext context) {
		for (RetryListener listener : this.listeners) {
			try {
				listener.beforeAttempt(context);
			}
			catch (Throwable ex) {
				failed(listener, "beforeAttempt", ex);
			}
		}
	}

	void attemptReturned(RetryContext context) {
		for (int i = this.listeners.length - 1; i >= 0; i--) {
			try {
				this.listeners[i].attemptReturned(context);
			}
			catch (Throwable ex) {
				failed(this.listeners[i], "attemptReturned", ex);
			}
		}
	}

	void onSuccess(RetryContext context, @Nullable Object result) {
		for (RetryListener listener : this.listeners) {
			try {
				listener.onSuccess(context, result);
			}
			catch (Throwable ex) {
				failed(listener, "onSuccess", ex);
			}
		}
	}

	void onError(RetryContext context, @Nullable Throwable failure) {
		for (RetryListener listener : this.listeners) {
			try {
				listener.onError(context, failure);
			}
			catch (Throwable ex) {
				failed(listener, "onError", ex);
			}
		}
	}

	void onRetry(RetryContext context, long delayNanos) {
		if (this.listeners.length == 0) {
			return;
		}
		Duration delay = Duration.ofNanos(delayNanos);
		for (RetryListener listener : this.listeners) {
			try {
				listener.onRetry(context, delay);
			}
			catch (Throwable ex) {
				failed(listener, "onRetry", ex);
			}
		}
	}

	void close(RetryContext context, @Nullable Throwable failure) {
		for (int i = this.listeners.length - 1; i >= 0; i--) {
			try {
				this.listeners[i].close(context, failure);
			}
			catch (Throwable ex) {
				failed(this.listeners[i], "close", ex);
			}
		}
	}

	private void failed(RetryListener listener, String method, Throwable ex) {
		this.counters.listenerFailure();
		LOGGER.log(Level.WARNING, () -> "Retry listener " + listener + "." + method + " threw for instance '"
				+ this.name + "'; the call goes on", ex);
	}

}
