package dev.retrykit.spring.boot.autoconfigure.cluster;

import java.time.Duration;

import dev.retrykit.redis.RedisEngine;
import dev.retrykit.redis.RedisEngineBuilder;
import dev.retrykit.spring.boot.autoconfigure.ClusterSettings;
import dev.retrykit.spring.boot.autoconfigure.RetryProperties;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Offers the Redis engine to the retry cluster when Lettuce and {@code retry-redis} are on the class
 * path: built, if chosen, on the application's own Redis client as Spring Boot configures it
 * ({@code spring.data.redis.*}: the {@code LettuceConnectionFactory}'s client, or a Lettuce
 * {@code RedisClient} bean), never on a configuration of its own. The engine opens two connections with that
 * client (commands and Pub/Sub), so they share its address, credentials, TLS and timeouts, and closes them
 * when the context closes. The only classes of the Spring module that refer to Redis are this one and
 * {@link RedisConnections}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = { "io.lettuce.core.RedisClient", "dev.retrykit.redis.RedisEngine" })
class RedisEngineConfiguration {

	/** The shortest time a replica counts as a member after its last heartbeat. */
	private static final Duration MEMBER_TIMEOUT = Duration.ofSeconds(10);

	@Bean
	ClusterEngineCandidate redisClusterEngineCandidate(ConfigurableListableBeanFactory beanFactory,
			RetryProperties properties) {
		RedisConnections connections = new RedisConnections(beanFactory);
		return new ClusterEngineCandidate(ClusterEngineChoice.Engine.REDIS.id, connections.missing(),
				() -> engine(connections, properties));
	}

	private static RedisEngine engine(RedisConnections connections, RetryProperties properties) {
		RedisEngineBuilder engine = RedisEngine.builder(connections.client());
		ClusterSettings.apply("retry.cluster.prefix", properties.getCluster().getPrefix(), engine::prefix);
		ClusterSettings.apply("retry.context-cache.ttl", properties.getContextCache().getTtl(), engine::contextTtl);
		ClusterSettings.apply("retry.context-cache.capacity", properties.getContextCache().getCapacity(),
				engine::contextCapacity);
		// A replica heartbeats at every synchronisation: three missed ones, and at least 10s, before it stops
		// counting, so that a slow synchronisation does not drop a live replica from the member count.
		Duration threeSyncs = properties.getCluster().getSyncInterval().multipliedBy(3);
		engine.memberTimeout((threeSyncs.compareTo(MEMBER_TIMEOUT) > 0) ? threeSyncs : MEMBER_TIMEOUT);
		return engine.build();
	}

}
