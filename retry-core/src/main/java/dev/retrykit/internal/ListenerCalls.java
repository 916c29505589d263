package dev.retrykit.internal;

import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Calls the listeners of one instance, of one kind, so that a failing listener never changes what it
 * listens to: whatever it throws, an {@link Error} included, is caught, counted as the instance's
 * listener failure ({@link dev.retrykit.RetryMetrics#getListenerFailures()}) and logged, and the
 * remaining listeners are still called. The one loop every callback of {@link Listeners} and
 * {@link FailbackListeners} goes through; they only name the callback.
 *
 * <p>Thread-safe: the listeners are an array replaced whole when one is added (rare), read at every call
 * (frequent). A callback is a non-capturing method reference, so telling allocates nothing.
 * @param <L> the listener type
 */
abstract class ListenerCalls<L> {

	private final String name;

	private final RetryCounters counters;

	private volatile L[] listeners;

	ListenerCalls(String name, RetryCounters counters, L[] listeners) {
		this.name = name;
		this.counters = counters;
		this.listeners = listeners;
	}

	/** One callback of a listener, with its two arguments. */
	@FunctionalInterface
	interface Callback<L, A, B extends @Nullable Object> {

		void call(L listener, A first, B second) throws Throwable;

	}

	final boolean isEmpty() {
		return this.listeners.length == 0;
	}

	final String name() {
		return this.name;
	}

	final L[] listeners() {
		return this.listeners;
	}

	final synchronized void add(L listener) {
		Objects.requireNonNull(listener, "listener must not be null");
		L[] more = Arrays.copyOf(this.listeners, this.listeners.length + 1);
		more[this.listeners.length] = listener;
		this.listeners = more;
	}

	/**
	 * Tells every listener, in the order they were given or in reverse.
	 * @param method the callback's name, for the log
	 */
	final <A, B extends @Nullable Object> void tell(String method, Callback<? super L, A, B> callback, A first, B second,
			boolean reverse) {
		L[] all = this.listeners;
		for (int i = 0; i < all.length; i++) {
			L listener = all[reverse ? all.length - 1 - i : i];
			try {
				callback.call(listener, first, second);
			}
			catch (Throwable ex) {
				failed(listener, method, first, ex);
			}
		}
	}

	/** Counts and logs a listener's failure; the caller goes on. */
	final void failed(L listener, String method, Object about, Throwable ex) {
		this.counters.listenerFailure();
		logger().log(Level.WARNING, () -> describe(listener, method, about), ex);
	}

	/** Counts and logs the failure of something the listeners rely on, such as a call's describer; the caller goes on. */
	final void failed(Object other, Object about, Throwable ex) {
		this.counters.listenerFailure();
		logger().log(Level.WARNING, () -> other + " threw for instance '" + this.name + "' (" + about
				+ "); the listeners are told without it and the call goes on", ex);
	}

	/** @return where failures are logged */
	abstract System.Logger logger();

	/** @return the log line of a listener that threw, e.g. which call or task it was told about */
	abstract String describe(L listener, String method, Object about);

}
