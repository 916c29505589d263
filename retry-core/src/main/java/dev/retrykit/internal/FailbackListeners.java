package dev.retrykit.internal;

import java.util.List;

import dev.retrykit.failback.FailbackListener;
import dev.retrykit.failback.FailbackTask;

/**
 * The listeners of one failback executor, told through {@link ListenerCalls}: a failing listener never
 * changes what happens to a task. A listener that threw while a task was being queued must not leave it
 * pending but never scheduled; one that threw on the submitter's thread must not become the
 * submitter's outcome. Thread-safe.
 */
final class FailbackListeners extends ListenerCalls<FailbackListener> {

	private static final System.Logger LOGGER = System.getLogger(FailbackListener.class.getName());

	FailbackListeners(String name, RetryCounters counters, List<FailbackListener> initial) {
		super(name, counters, initial.toArray(new FailbackListener[0]));
	}

	void onQueued(FailbackTask task) {
		tell("onQueued", (listener, queued, name) -> listener.onQueued(name, queued), task, name(), false);
	}

	void onSucceeded(FailbackTask task) {
		tell("onSucceeded", (listener, succeeded, name) -> listener.onSucceeded(name, succeeded), task, name(), false);
	}

	void onExhausted(FailbackTask task, Throwable lastFailure) {
		tell("onExhausted", (listener, exhausted, failure) -> listener.onExhausted(name(), exhausted, failure), task,
				lastFailure, false);
	}

	@Override
	System.Logger logger() {
		return LOGGER;
	}

	@Override
	String describe(FailbackListener listener, String method, Object about) {
		String task = (about instanceof FailbackTask failback) ? "task '" + failback.key() + "' of " : "";
		return "Failback listener " + listener + "." + method + " threw for " + task + "'" + name()
				+ "'; the task is unaffected";
	}

}
