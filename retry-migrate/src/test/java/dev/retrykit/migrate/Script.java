package dev.retrykit.migrate;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scripted downstream of the end-to-end applications: each operation answers the outcomes planned for it in
 * order (a value is returned, an exception thrown) and counts its calls, so a test sees every attempt. Thread-safe.
 */
public final class Script {

	private final Map<String, Deque<Object>> outcomes = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	/**
	 * Plans the next outcomes of an operation.
	 * @param operation the operation
	 * @param planned values to return or exceptions to throw, in order
	 */
	public void plan(String operation, List<Object> planned) {
		this.outcomes.computeIfAbsent(operation, (key) -> new ArrayDeque<>()).addAll(planned);
	}

	/**
	 * One call of the downstream.
	 * @param operation the operation
	 * @return the next planned value
	 * @throws IOException when the next planned outcome is one
	 */
	public synchronized String call(String operation) throws IOException {
		this.calls.computeIfAbsent(operation, (key) -> new AtomicInteger()).incrementAndGet();
		Object outcome = this.outcomes.getOrDefault(operation, new ArrayDeque<>()).poll();
		if (outcome instanceof IOException failure) {
			throw failure;
		}
		if (outcome instanceof RuntimeException failure) {
			throw failure;
		}
		if (outcome == null) {
			throw new IllegalStateException("nothing planned for " + operation);
		}
		return (String) outcome;
	}

	/**
	 * @param operation an operation
	 * @return how often it was called
	 */
	public int calls(String operation) {
		AtomicInteger count = this.calls.get(operation);
		return (count != null) ? count.get() : 0;
	}

}
