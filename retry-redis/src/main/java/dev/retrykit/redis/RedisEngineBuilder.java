package dev.retrykit.redis;

import java.time.Duration;
import java.util.Objects;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link RedisEngine}. Each setter validates its value and names the rule it broke.
 * Not thread-safe.
 */
public final class RedisEngineBuilder {

	final @Nullable RedisClient client;

	final @Nullable StatefulRedisConnection<String, byte[]> connection;

	final @Nullable StatefulRedisPubSubConnection<String, byte[]> pubSub;

	String prefix = "retrykit";

	Duration contextTtl = Duration.ofHours(1);

	int contextCapacity = 4096;

	Duration memberTimeout = Duration.ofSeconds(10);

	RedisEngineBuilder(RedisClient client) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.connection = null;
		this.pubSub = null;
	}

	RedisEngineBuilder(StatefulRedisConnection<String, byte[]> connection,
			StatefulRedisPubSubConnection<String, byte[]> pubSub) {
		this.client = null;
		this.connection = Objects.requireNonNull(connection, "connection must not be null");
		this.pubSub = Objects.requireNonNull(pubSub, "pubSub must not be null");
	}

	/**
	 * Sets the start of the names of the engine's keys and channel.
	 * @param prefix the start of the names of the engine's keys and channel (default {@code retrykit})
	 * @return this builder
	 * @throws IllegalArgumentException if blank or containing {@code '{'} or {@code '}'}, which would
	 * change the keys' Redis Cluster hash tag
	 */
	public RedisEngineBuilder prefix(String prefix) {
		Objects.requireNonNull(prefix, "prefix must not be null");
		if (prefix.isBlank() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Invalid prefix '" + prefix + "': must not be blank nor contain '{' or '}'");
		}
		this.prefix = prefix;
		return this;
	}

	/**
	 * Sets how long a stateful context is kept after it was last read or written.
	 * @param ttl how long a stateful context is kept after it was last read or written (default 1 hour,
	 * whole milliseconds)
	 * @return this builder
	 * @throws IllegalArgumentException if shorter than a millisecond
	 */
	public RedisEngineBuilder contextTtl(Duration ttl) {
		Objects.requireNonNull(ttl, "ttl must not be null");
		if (ttl.toMillis() < 1) {
			throw new IllegalArgumentException("Invalid context cache ttl (" + ttl + "): must be 1ms or longer");
		}
		this.contextTtl = ttl;
		return this;
	}

	/**
	 * Sets the most stateful contexts kept per instance, over all replicas.
	 * @param capacity the most stateful contexts kept per instance, over all replicas (default 4096); the
	 * least recently used are evicted beyond it
	 * @return this builder
	 * @throws IllegalArgumentException if less than 1
	 */
	public RedisEngineBuilder contextCapacity(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("Invalid context cache capacity (" + capacity + "): must be 1 or greater");
		}
		this.contextCapacity = capacity;
		return this;
	}

	/**
	 * Sets how long a replica counts as a member after its last heartbeat.
	 * @param timeout how long a replica counts as a member after its last heartbeat (default 10 seconds);
	 * a replica heartbeats whenever the cluster counts the members (every sync interval once started) and
	 * whenever it publishes a circuit message
	 * @return this builder
	 * @throws IllegalArgumentException if shorter than a millisecond
	 */
	public RedisEngineBuilder memberTimeout(Duration timeout) {
		Objects.requireNonNull(timeout, "timeout must not be null");
		if (timeout.toMillis() < 1) {
			throw new IllegalArgumentException("Invalid member timeout (" + timeout + "): must be 1ms or longer");
		}
		this.memberTimeout = timeout;
		return this;
	}

	/**
	 * Returns the engine; given a {@link RedisClient}, opens its two connections (commands and Pub/Sub)
	 * first.
	 * @return the engine
	 * @throws io.lettuce.core.RedisException if the client cannot connect
	 */
	public RedisEngine build() {
		return new RedisEngine(this);
	}

}
