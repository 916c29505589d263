package dev.retrykit.sample.cluster;

import java.util.List;

import dev.retrykit.testing.redis.RedisTestServer;
import org.jspecify.annotations.Nullable;

/**
 * {@link ClusterBudgetChecks} on three replicas of the sample's {@code cluster-redis} profile, sharing through a
 * {@code redis-server} the test starts on 127.0.0.1.
 */
class ClusterBudgetOnRedisIT extends ClusterBudgetChecks {

	private @Nullable RedisTestServer redis;

	@Override
	List<String> engineArguments() throws Exception {
		RedisTestServer server = new RedisTestServer();
		this.redis = server;
		return List.of("--spring.profiles.active=cluster-redis", "--spring.data.redis.port=" + server.port());
	}

	@Override
	void stopEngine() {
		if (this.redis != null) {
			this.redis.close();
		}
	}

}
