package dev.retrykit.sample.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.hazelcast.HazelcastClusterEngine;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * With the {@code cluster} profile, the application's {@link HazelcastInstance}: an embedded member that
 * listens on 127.0.0.1 only and finds the other replicas' members over TCP on three ports from
 * {@code sample.hazelcast.port} (default 5701: 5701-5703), with no multicast, no discovery and no
 * phone-home. retrykit shares its state through this bean ({@code retry.cluster.enabled}). Spring Boot's own
 * Hazelcast auto-configuration would build it from {@code hazelcast.yaml} as well; the sample declares it so
 * that nothing else is needed.
 *
 * <p>Trust: whoever can connect to a member can read and change the shared retry state (Hazelcast Community
 * Edition has no member or client authentication). So the member binds to the loopback interface only
 * ({@code hazelcast.socket.bind.any=false}), not to every interface, and it deserializes Java-serialized
 * values only of the few classes retrykit needs ({@link HazelcastClusterEngine#javaSerializationFilter()}):
 * retrykit stores {@code String} keys and {@code byte[]}, {@code Long} and {@code String} values, which
 * Hazelcast writes with serializers of its own, so nothing else has a reason to be in its maps.
 */
@Configuration(proxyBeanMethods = false)
@Profile("cluster")
class HazelcastMemberConfiguration {

	/** The member's address: the loopback interface, so that no other machine can reach it. */
	static final String ADDRESS = "127.0.0.1";

	/** Members of the sample on one machine: three ports from the base port. */
	static final int PORTS = 3;

	@Bean(destroyMethod = "shutdown")
	HazelcastInstance hazelcastInstance(@Value("${spring.application.name}") String name,
			@Value("${sample.hazelcast.port:5701}") int basePort) {
		Config config = new Config().setClusterName(name);
		config.setProperty("hazelcast.phone.home.enabled", "false");
		// Listen on the interface below only, not on every interface (Hazelcast's default binds to all).
		config.setProperty("hazelcast.socket.bind.any", "false");
		config.setProperty("hazelcast.local.localAddress", ADDRESS);
		config.getJetConfig().setEnabled(false);
		NetworkConfig network = config.getNetworkConfig().setPort(basePort).setPortAutoIncrement(true)
			.setPortCount(PORTS).setPublicAddress(ADDRESS);
		network.getInterfaces().setEnabled(true).addInterface(ADDRESS);
		JoinConfig join = network.getJoin();
		join.getMulticastConfig().setEnabled(false);
		join.getAutoDetectionConfig().setEnabled(false);
		for (int port = basePort; port < basePort + PORTS; port++) {
			join.getTcpIpConfig().setEnabled(true).addMember(ADDRESS + ":" + port);
		}
		config.getSerializationConfig().setJavaSerializationFilterConfig(serializationFilter());
		return Hazelcast.newHazelcastInstance(config);
	}

	/**
	 * The classes a member may deserialize from Java serialization: the filter retrykit recommends, with
	 * Hazelcast's defaults disabled (they admit every class whose name starts with {@code java},
	 * {@code javax.*} included, and {@code com.hazelcast.}) and only what retrykit needs listed. Any other
	 * class in a map or on a topic is refused when read ({@code SecurityException}: "Resolving class ... is
	 * not allowed"), and retrykit reads it as an unreadable entry.
	 * @return the allow-list
	 */
	static JavaSerializationFilterConfig serializationFilter() {
		return HazelcastClusterEngine.javaSerializationFilter();
	}

}
