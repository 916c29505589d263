package dev.retrykit.hazelcast;

import java.time.Duration;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.testing.cluster.ClusterEngineContract;
import dev.retrykit.testing.hazelcast.HazelcastTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Hazelcast engine keeps every engine's promises, on a cluster of three embedded members. */
class HazelcastClusterEngineContractTests extends ClusterEngineContract {

	private static HazelcastTestCluster hazelcast;

	private int made;

	@BeforeAll
	static void startCluster() {
		hazelcast = new HazelcastTestCluster(3);
	}

	@AfterAll
	static void stopCluster() {
		hazelcast.close();
	}

	/** Successive replicas on successive members, so that a test's replicas cover the cluster. */
	@Override
	protected ClusterEngine newReplica(String namespace, Duration contextTtl, int contextCapacity) {
		return HazelcastClusterEngine.builder(hazelcast.member(this.made++ % 3)).prefix(namespace).contextTtl(contextTtl)
			.contextCapacity(contextCapacity).build();
	}

	/** An object of a JDK type that is not a {@code String}, as another client of the topic could publish. */
	@Override
	protected void publishNotText(String namespace) {
		hazelcast.member(1).getTopic(namespace + ".circuits").publish(42L);
	}

	/** A String where the engine keeps byte[], as another client of the map could put. */
	@Override
	protected void storeForeignValue(String namespace, String cache, String key) {
		hazelcast.member(2).getMap(namespace + ".contexts." + cache).put(key, "not a snapshot");
	}

}
