package dev.retrykit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.testing.cluster.ClusterEngineContract;
import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Redis engine keeps every engine's promises when it connects as the README's ACL user (its
 * {@code ACL SETUSER} line, with the test's prefix for {@code retrykit}): the line grants every command
 * the engine and its scripts run. A {@code NOPERM} anywhere would make a contract test fail (the
 * {@code RetryCluster} cases also check that nothing fell back).
 */
class RedisAclContractTests extends ClusterEngineContract {

	private static RedisTestServer redis;

	private static ClientResources resources;

	private static RedisClient admin;

	/** One client per test's prefix, as its ACL user; shut down after all tests, once the contract closed its replicas. */
	private static final Map<String, RedisClient> clients = new HashMap<>();

	@BeforeAll
	static void startRedis() {
		redis = new RedisTestServer();
		resources = DefaultClientResources.create();
		admin = RedisClient.create(resources, redis.uri());
	}

	@AfterAll
	static void stopRedis() {
		clients.values().forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
		admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		resources.shutdown();
		redis.close();
	}

	@Override
	protected ClusterEngine newReplica(String namespace, Duration contextTtl, int contextCapacity) {
		RedisClient client = clients.computeIfAbsent(namespace,
				prefix -> RedisClient.create(resources, new ReadmeAclUser(prefix).create(redis).uri(redis)));
		return RedisEngine.builder(client).prefix(namespace).contextTtl(contextTtl).contextCapacity(contextCapacity)
			.build();
	}

	@Override
	protected void publishNotText(String namespace) {
		try (StatefulRedisConnection<String, byte[]> connection = admin.connect(RedisEngine.CODEC)) {
			connection.sync().publish(namespace + ".circuits", new byte[] { (byte) 0xFF, (byte) 0xFE, (byte) 0xFD });
		}
	}


	/** A hash at the context's key, listed in the instance's index, as a client with write access could leave. */
	@Override
	protected void storeForeignValue(String namespace, String cache, String key) {
		try (StatefulRedisConnection<String, byte[]> connection = admin.connect(RedisEngine.CODEC)) {
			connection.sync().hset(namespace + ":{" + cache + "}:context:" + key, "field", new byte[] { 1 });
			connection.sync().zadd(namespace + ":{" + cache + "}:contexts", System.currentTimeMillis(), key.getBytes(StandardCharsets.UTF_8));
		}
	}

}
