package dev.retrykit.spring.boot.autoconfigure.cluster;

import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The application's Redis client, for the Redis engine: the client of its {@code LettuceConnectionFactory}
 * bean (what Spring Boot configures from {@code spring.data.redis.*}), or else its Lettuce
 * {@code RedisClient} bean. Spring Data Redis is optional: its types are reached only when it is on the
 * class path. Looks beans up by type without creating them until {@link #client()}.
 */
final class RedisConnections {

	private static final String SPRING_DATA_REDIS = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

	private final ListableBeanFactory beanFactory;

	private final boolean springData;

	RedisConnections(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.springData = ClassUtils.isPresent(SPRING_DATA_REDIS, getClass().getClassLoader());
	}

	/** @return what is missing for the engine to run, or {@code null} when the application has a Lettuce client */
	@Nullable String missing() {
		if (this.springData && SpringDataRedis.lettuceFactories(this.beanFactory).length > 0
				|| names(RedisClient.class).length > 0) {
			return null;
		}
		String[] others = (this.springData) ? SpringDataRedis.connectionFactories(this.beanFactory) : new String[0];
		if (others.length > 0) {
			return "the application's RedisConnectionFactory bean '" + others[0] + "' is not Lettuce's (with Spring Boot: "
					+ "spring.data.redis.client-type=jedis, or Jedis alone on the class path), and the Redis engine runs "
					+ "on Lettuce";
		}
		return "no Redis connection is defined (no LettuceConnectionFactory bean, which Spring Boot configures from "
				+ "spring.data.redis.* with spring-boot-starter-data-redis, and no Lettuce RedisClient bean)";
	}

	/**
	 * @return the application's standalone or Sentinel client
	 * @throws InvalidRetryPropertyException naming {@code retry.cluster.engine} when the client is a Redis
	 * Cluster client, which the engine does not take yet
	 */
	RedisClient client() {
		AbstractRedisClient client = (this.springData && SpringDataRedis.lettuceFactories(this.beanFactory).length > 0)
				? SpringDataRedis.nativeClient(this.beanFactory) : this.beanFactory.getBean(RedisClient.class);
		if (client instanceof RedisClient redis) {
			return redis;
		}
		String kind = (client instanceof RedisClusterClient) ? "a Redis Cluster client (spring.data.redis.cluster.nodes)"
				: "a " + client.getClass().getName();
		throw new InvalidRetryPropertyException("retry.cluster.engine", "redis",
				"the application's Redis connection is " + kind + ", and the Redis engine runs on a standalone or "
						+ "Sentinel connection only (its keys are laid out for Redis Cluster, its connections not yet)",
				"Point spring.data.redis.* at a standalone Redis (host, port) or a Sentinel, set "
						+ "retry.cluster.engine=hazelcast, or set retry.cluster.enabled=false.",
				null);
	}

	private String[] names(Class<?> type) {
		return this.beanFactory.getBeanNamesForType(type, true, false);
	}

	/** Spring Data Redis's types, loaded only when it is on the class path. */
	private static final class SpringDataRedis {

		static String[] lettuceFactories(ListableBeanFactory beanFactory) {
			return beanFactory.getBeanNamesForType(LettuceConnectionFactory.class, true, false);
		}

		static String[] connectionFactories(ListableBeanFactory beanFactory) {
			return beanFactory.getBeanNamesForType(RedisConnectionFactory.class, true, false);
		}

		/** The factory's client, created when the factory started (at its initialisation, by default). */
		static AbstractRedisClient nativeClient(ListableBeanFactory beanFactory) {
			LettuceConnectionFactory factory = beanFactory.getBeanProvider(LettuceConnectionFactory.class).getObject();
			if (!factory.isRunning()) {
				factory.start();
			}
			return factory.getRequiredNativeClient();
		}

	}

}
