package dev.retrykit.hazelcast;

import java.time.Duration;
import java.util.Objects;

import com.hazelcast.core.HazelcastInstance;

/**
 * Builds a {@link HazelcastClusterEngine}. Each setter validates its value and names the rule it
 * broke. Not thread-safe.
 */
public final class HazelcastClusterEngineBuilder {

	final HazelcastInstance hazelcast;

	String prefix = "retrykit";

	Duration contextTtl = Duration.ofHours(1);

	int contextCapacity = 4096;

	HazelcastClusterEngineBuilder(HazelcastInstance hazelcast) {
		this.hazelcast = Objects.requireNonNull(hazelcast, "hazelcast must not be null");
	}

	/**
	 * Sets the start of the names of the engine's maps and topic.
	 * @param prefix the start of the names of the engine's maps and topic (default {@code retrykit})
	 * @return this builder
	 * @throws IllegalArgumentException if blank
	 */
	public HazelcastClusterEngineBuilder prefix(String prefix) {
		Objects.requireNonNull(prefix, "prefix must not be null");
		if (prefix.isBlank()) {
			throw new IllegalArgumentException("Invalid prefix '" + prefix + "': must not be blank");
		}
		this.prefix = prefix;
		return this;
	}

	/**
	 * Sets how long a stateful context is kept after its last write.
	 * @param ttl how long a stateful context is kept after its last write (default 1 hour, whole seconds)
	 * @return this builder
	 * @throws IllegalArgumentException if shorter than a second
	 */
	public HazelcastClusterEngineBuilder contextTtl(Duration ttl) {
		Objects.requireNonNull(ttl, "ttl must not be null");
		if (ttl.getSeconds() < 1) {
			throw new IllegalArgumentException("Invalid context cache ttl (" + ttl + "): must be 1s or longer");
		}
		this.contextTtl = ttl;
		return this;
	}

	/**
	 * Sets the most stateful contexts each member keeps per instance.
	 * @param capacity the most stateful contexts each member keeps per instance (default 4096); the
	 * least recently used are evicted beyond it
	 * @return this builder
	 * @throws IllegalArgumentException if less than 1
	 */
	public HazelcastClusterEngineBuilder contextCapacity(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("Invalid context cache capacity (" + capacity + "): must be 1 or greater");
		}
		this.contextCapacity = capacity;
		return this;
	}

	/**
	 * Declares the engine's maps on the instance (dynamic configuration; an existing, different
	 * configuration of the same names is kept and logged) and returns the engine.
	 * @return the engine
	 */
	public HazelcastClusterEngine build() {
		return new HazelcastClusterEngine(this);
	}

}
