package dev.retrykit.spring.boot.autoconfigure.cluster;

import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.hazelcast.HazelcastClusterEngine;
import dev.retrykit.hazelcast.HazelcastClusterEngineBuilder;
import dev.retrykit.spring.boot.autoconfigure.ClusterSettings;
import dev.retrykit.spring.boot.autoconfigure.RetryProperties;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Offers the Hazelcast engine to the retry cluster when Hazelcast and {@code retry-hazelcast} are on the
 * class path: built, if chosen, on the application's {@code HazelcastInstance} bean (an embedded member or
 * a client), with {@code retry.cluster.prefix} and the context cache's TTL and capacity. The only class of
 * the Spring module that refers to Hazelcast.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = { "com.hazelcast.core.HazelcastInstance", "dev.retrykit.hazelcast.HazelcastClusterEngine" })
class HazelcastEngineConfiguration {

	@Bean
	ClusterEngineCandidate hazelcastClusterEngineCandidate(ListableBeanFactory beanFactory, RetryProperties properties,
			ObjectProvider<HazelcastInstance> hazelcast) {
		boolean present = beanFactory.getBeanNamesForType(HazelcastInstance.class, true, false).length > 0;
		return new ClusterEngineCandidate(ClusterEngineChoice.Engine.HAZELCAST.id,
				present ? null : "no HazelcastInstance bean is defined", () -> engine(hazelcast.getObject(), properties));
	}

	private static HazelcastClusterEngine engine(HazelcastInstance instance, RetryProperties properties) {
		HazelcastClusterEngineBuilder engine = HazelcastClusterEngine.builder(instance);
		ClusterSettings.apply("retry.cluster.prefix", properties.getCluster().getPrefix(), engine::prefix);
		ClusterSettings.apply("retry.context-cache.ttl", properties.getContextCache().getTtl(), engine::contextTtl);
		ClusterSettings.apply("retry.context-cache.capacity", properties.getContextCache().getCapacity(),
				engine::contextCapacity);
		return engine.build();
	}

}
