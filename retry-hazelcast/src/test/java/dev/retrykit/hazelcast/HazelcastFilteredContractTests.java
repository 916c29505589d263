package dev.retrykit.hazelcast;

import java.time.Duration;

import javax.management.BadAttributeValueExpException;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.testing.cluster.ClusterEngineContract;
import dev.retrykit.testing.hazelcast.HazelcastTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Hazelcast engine keeps every engine's promises on members that all have the Java serialization
 * filter it recommends ({@link HazelcastClusterEngine#javaSerializationFilter()}): the engine needs no
 * Java serialization, and what the filter refuses reads as an unreadable entry.
 */
class HazelcastFilteredContractTests extends ClusterEngineContract {

	private static HazelcastTestCluster hazelcast;

	private int made;

	@BeforeAll
	static void startCluster() {
		hazelcast = new HazelcastTestCluster(3, HazelcastClusterEngine.javaSerializationFilter());
	}

	@AfterAll
	static void stopCluster() {
		hazelcast.close();
	}

	@Override
	protected ClusterEngine newReplica(String namespace, Duration contextTtl, int contextCapacity) {
		return HazelcastClusterEngine.builder(hazelcast.member(this.made++ % 3)).prefix(namespace).contextTtl(contextTtl)
			.contextCapacity(contextCapacity).build();
	}

	@Override
	protected void publishNotText(String namespace) {
		hazelcast.member(1).getTopic(namespace + ".circuits").publish(42L);
	}

	/** A known gadget class, Java-serialized: writing it is not filtered, reading it is refused. */
	@Override
	protected void storeForeignValue(String namespace, String cache, String key) {
		hazelcast.member(2).getMap(namespace + ".contexts." + cache).put(key, new BadAttributeValueExpException("gadget"));
	}

}
