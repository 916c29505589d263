package dev.retrykit.testing.cluster;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.retrykit.spi.ClusterEngine;

/** The engine contract on the in-memory engine, so that a change to the contract is checked without a server. */
class InMemoryClusterEngineContractTests extends ClusterEngineContract {

	private final Map<String, InMemoryClusterEngine.Store> stores = new ConcurrentHashMap<>();

	@Override
	protected ClusterEngine newReplica(String namespace, Duration contextTtl, int contextCapacity) {
		return new InMemoryClusterEngine(this.stores.computeIfAbsent(namespace, name -> new InMemoryClusterEngine.Store()),
				contextTtl, contextCapacity);
	}

	@Override
	protected void publishNotText(String namespace) {
		this.stores.computeIfAbsent(namespace, name -> new InMemoryClusterEngine.Store()).publishNotText("someone");
	}

	@Override
	protected void storeForeignValue(String namespace, String cache, String key) {
		this.stores.computeIfAbsent(namespace, name -> new InMemoryClusterEngine.Store()).storeTooLong(cache, key);
	}

}
