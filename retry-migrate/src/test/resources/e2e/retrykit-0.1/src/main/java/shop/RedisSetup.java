package shop;

import java.util.List;

import dev.retrykit.redis.RedisClusterEngine;
import dev.retrykit.spi.SnapshotCodec;
import dev.retrykit.spi.SnapshotValues;

class RedisSetup {

	final SnapshotCodec codec = SnapshotCodec.allowing(List.of("shop.Order"));

	SnapshotValues values;

	RedisClusterEngine engine() {
		return RedisClusterEngine.builder("redis://127.0.0.1:6379").prefix("shop").build();
	}

	dev.retrykit.redis.RedisClusterEngineBuilder builder() {
		return dev.retrykit.redis.RedisClusterEngine.builder("redis://127.0.0.1:6379");
	}

}
