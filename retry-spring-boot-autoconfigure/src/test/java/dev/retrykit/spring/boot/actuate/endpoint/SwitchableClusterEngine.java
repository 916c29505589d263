package dev.retrykit.spring.boot.actuate.endpoint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.retrykit.spi.ClusterEngine;
import org.jspecify.annotations.Nullable;

/**
 * An engine in this JVM for one replica that can be taken down: while {@link #down}, every operation throws,
 * as an engine does whose server was killed. Thread-safe.
 */
public final class SwitchableClusterEngine implements ClusterEngine {

	/** Whether every operation throws. */
	public volatile boolean down;

	private final Map<String, byte[]> contexts = new ConcurrentHashMap<>();

	private final Map<String, Long> budgets = new ConcurrentHashMap<>();

	private final Map<String, String> circuitStates = new ConcurrentHashMap<>();

	private void reach() {
		if (this.down) {
			throw new IllegalStateException("engine down");
		}
	}

	@Override
	public String engineName() {
		return "switchable";
	}

	@Override
	public int members() {
		reach();
		return 1;
	}

	@Override
	public String localMember() {
		reach();
		return "member-1";
	}

	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		reach();
		return this.contexts.get(cache + "/" + key);
	}

	@Override
	public synchronized boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected,
			byte @Nullable [] next) {
		reach();
		String id = cache + "/" + key;
		if (!Arrays.equals(this.contexts.get(id), expected)) {
			return false;
		}
		if (next == null) {
			this.contexts.remove(id);
		}
		else {
			this.contexts.put(id, next);
		}
		return true;
	}

	@Override
	public void removeContext(String cache, String key) {
		reach();
		this.contexts.remove(cache + "/" + key);
	}

	@Override
	public int contextCount(String cache) {
		reach();
		return (int) this.contexts.keySet().stream().filter(id -> id.startsWith(cache + "/")).count();
	}

	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		reach();
		List<StoredContext> stored = new ArrayList<>();
		this.contexts.forEach((id, bytes) -> {
			if (id.startsWith(cache + "/") && stored.size() < limit) {
				stored.add(new StoredContext(id.substring(cache.length() + 1), bytes));
			}
		});
		return stored;
	}

	@Override
	public void clearContexts(String cache) {
		reach();
		this.contexts.keySet().removeIf(id -> id.startsWith(cache + "/"));
	}

	@Override
	public synchronized long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		reach();
		long next = Math.max(0, Math.min(maxMilliTokens, this.budgets.getOrDefault(budget, maxMilliTokens) + deltaMilliTokens));
		this.budgets.put(budget, next);
		return next;
	}

	@Override
	public void publishCircuit(String message) {
		reach();
	}

	@Override
	public AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver) {
		reach();
		return () -> {
		};
	}

	@Override
	public void storeCircuitState(String circuit, @Nullable String state) {
		reach();
		if (state == null) {
			this.circuitStates.remove(circuit);
		}
		else {
			this.circuitStates.put(circuit, state);
		}
	}

	@Override
	public @Nullable String circuitState(String circuit) {
		reach();
		return this.circuitStates.get(circuit);
	}

}
