package dev.retrykit.sample.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * With the {@code cluster} profile, the application's {@link HazelcastInstance}: an embedded member on
 * 127.0.0.1 that finds the other replicas' members over TCP on ports 5701-5703 (no multicast, no
 * discovery, no phone-home). retrykit shares its state through this bean ({@code retry.cluster.enabled}).
 * Spring Boot's own Hazelcast auto-configuration would build it from {@code hazelcast.yaml} as well; the
 * sample declares it so that nothing else is needed.
 */
@Configuration(proxyBeanMethods = false)
@Profile("cluster")
class HazelcastMemberConfiguration {

	@Bean(destroyMethod = "shutdown")
	HazelcastInstance hazelcastInstance(@Value("${spring.application.name}") String name) {
		Config config = new Config().setClusterName(name);
		config.setProperty("hazelcast.phone.home.enabled", "false");
		config.getJetConfig().setEnabled(false);
		config.getNetworkConfig().setPort(5701).setPortAutoIncrement(true).setPortCount(3);
		config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
		JoinConfig join = config.getNetworkConfig().getJoin();
		join.getMulticastConfig().setEnabled(false);
		join.getAutoDetectionConfig().setEnabled(false);
		join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:5701").addMember("127.0.0.1:5702")
			.addMember("127.0.0.1:5703");
		return Hazelcast.newHazelcastInstance(config);
	}

}
