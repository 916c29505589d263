package dev.retrykit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.testing.cluster.ClusterEngineContract;
import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Redis engine keeps every engine's promises, against a real {@code redis-server}. */
class RedisEngineContractTests extends ClusterEngineContract {

	private static RedisTestServer redis;

	private static RedisClient client;

	@BeforeAll
	static void startRedis() {
		redis = new RedisTestServer();
		client = RedisClient.create(redis.uri());
	}

	@AfterAll
	static void stopRedis() {
		client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		redis.close();
	}

	@Override
	protected ClusterEngine newReplica(String namespace, Duration contextTtl, int contextCapacity) {
		return RedisEngine.builder(client).prefix(namespace).contextTtl(contextTtl).contextCapacity(contextCapacity)
			.build();
	}

	@Override
	protected void publishNotText(String namespace) {
		try (StatefulRedisConnection<String, byte[]> connection = client.connect(RedisEngine.CODEC)) {
			connection.sync().publish(namespace + ".circuits", new byte[] { (byte) 0xFF, (byte) 0xFE, (byte) 0xFD });
		}
	}


	/** A hash at the context's key, listed in the instance's index, as a client with write access could leave. */
	@Override
	protected void storeForeignValue(String namespace, String cache, String key) {
		try (StatefulRedisConnection<String, byte[]> connection = client.connect(RedisEngine.CODEC)) {
			connection.sync().hset(namespace + ":{" + cache + "}:context:" + key, "field", new byte[] { 1 });
			connection.sync().zadd(namespace + ":{" + cache + "}:contexts", System.currentTimeMillis(), key.getBytes(StandardCharsets.UTF_8));
		}
	}

}
