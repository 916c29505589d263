package dev.retrykit.internal;

import java.time.Duration;

import dev.retrykit.RetryCallDescriber;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import org.jspecify.annotations.Nullable;

/**
 * An instance's {@link RetryListener}s, told through {@link ListenerCalls}: a failing listener never
 * breaks a call. Calls are told in order, and {@code attemptReturned} and {@code close} in reverse, so
 * that a listener opened first closes last. Thread-safe: the listeners are fixed; the one mutable field is
 * a cache that a race can only miss.
 */
final class Listeners extends ListenerCalls<RetryListener> {

	private static final System.Logger LOGGER = System.getLogger("dev.retrykit.RetryListener");

	/** The class of the operation last found not to be a {@link RetryCallDescriber}; a racy one-entry cache. */
	private @Nullable Class<?> notDescriber;

	Listeners(String name, RetryListener[] listeners, RetryCounters counters) {
		super(name, counters, listeners);
	}

	/**
	 * Lets a call's operation describe the call before the listeners hear of it, when it is a
	 * {@link RetryCallDescriber} and there are listeners; a describer that throws is counted and logged as a
	 * listener that throws.
	 */
	void describe(@Nullable Object operation, RetryContext context) {
		if (operation == null || isEmpty()) {
			return;
		}
		// A type check against an interface that fails scans the class's interfaces every time (about 25 ns
		// for a lambda on a VM core: it was most of a retry + breaker call): the class last found not to
		// describe is remembered. A race only repeats the check.
		Class<?> type = operation.getClass();
		if (type == this.notDescriber) {
			return;
		}
		if (operation instanceof RetryCallDescriber describer) {
			try {
				describer.describe(context);
			}
			catch (Throwable ex) {
				failed(describer, context, ex);
			}
		}
		else {
			this.notDescriber = type;
		}
	}

	/** Asks each listener in order; the first that vetoes ends the asking (one that throws does not veto). */
	boolean open(RetryContext context) {
		for (RetryListener listener : listeners()) {
			try {
				if (!listener.open(context)) {
					return false;
				}
			}
			catch (Throwable ex) {
				failed(listener, "open", context, ex);
			}
		}
		return true;
	}

	void beforeAttempt(RetryContext context) {
		tell("beforeAttempt", (listener, call, unused) -> listener.beforeAttempt(call), context, null, false);
	}

	void attemptReturned(RetryContext context) {
		tell("attemptReturned", (listener, call, unused) -> listener.attemptReturned(call), context, null, true);
	}

	void onSuccess(RetryContext context, @Nullable Object result) {
		tell("onSuccess", RetryListener::onSuccess, context, result, false);
	}

	void onError(RetryContext context, @Nullable Throwable failure) {
		tell("onError", RetryListener::onError, context, failure, false);
	}

	void onRetry(RetryContext context, long delayNanos) {
		if (!isEmpty()) {
			tell("onRetry", RetryListener::onRetry, context, Duration.ofNanos(delayNanos), false);
		}
	}

	void close(RetryContext context, @Nullable Throwable failure) {
		tell("close", RetryListener::close, context, failure, true);
	}

	@Override
	System.Logger logger() {
		return LOGGER;
	}

	@Override
	String describe(RetryListener listener, String method, Object about) {
		return "Retry listener " + listener + "." + method + " threw for instance '" + name() + "'; the call goes on";
	}

}
