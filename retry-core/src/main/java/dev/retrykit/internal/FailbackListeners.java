package dev.retrykit.internal;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.failback.FailbackListener;
import dev.retrykit.failback.FailbackTask;

/**
 * The listeners of one failback executor, called so that a failing listener never changes what
 * happens to a task: whatever it throws, an {@link Error} included, is caught, counted as the
 * instance's listener failure ({@link dev.retrykit.RetryMetrics#getListenerFailures()}) and logged,
 * and the remaining listeners are still called. A listener that threw while a task was being queued
 * must not leave it pending but never scheduled; one that threw on the submitter's thread must not
 * become the submitter's outcome.
 *
 * <p>Thread-safe: registration is rare and notification frequent, so a copy-on-write list serves both.
 */
final class FailbackListeners {

	private static final System.Logger LOGGER = System.getLogger(FailbackListener.class.getName());

	private final List<FailbackListener> listeners = new CopyOnWriteArrayList<>();

	private final String name;

	private final RetryCounters counters;

	FailbackListeners(String name, RetryCounters counters, List<FailbackListener> initial) {
		this.name = name;
		this.counters = counters;
		this.listeners.addAll(initial);
	}

	void add(FailbackListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
	}

	void onQueued(FailbackTask task) {
		for (FailbackListener listener : this.listeners) {
			try {
				listener.onQueued(this.name, task);
			}
			catch (Throwable ex) {
				failed(listener, "onQueued", task, ex);
			}
		}
	}

	void onSucceeded(FailbackTask task) {
		for (FailbackListener listener : this.listeners) {
			try {
				listener.onSucceeded(this.name, task);
			}
			catch (Throwable ex) {
				failed(listener, "onSucceeded", task, ex);
			}
		}
	}

	void onExhausted(FailbackTask task, Throwable lastFailure) {
		for (FailbackListener listener : this.listeners) {
			try {
				listener.onExhausted(this.name, task, lastFailure);
			}
			catch (Throwable ex) {
				failed(listener, "onExhausted", task, ex);
			}
		}
	}

	private void failed(FailbackListener listener, String method, FailbackTask task, Throwable ex) {
		this.counters.listenerFailure();
		LOGGER.log(Level.WARNING, () -> "Failback listener " + listener + "." + method + " threw for task '"
				+ task.key() + "' of '" + this.name + "'; the task is unaffected", ex);
	}

}
