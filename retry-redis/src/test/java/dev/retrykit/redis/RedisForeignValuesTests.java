package dev.retrykit.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.cluster.SnapshotCodec;
import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What anything that can write the engine's keys may leave there — a value of another type, a value too
 * long to be a snapshot, a string where a sorted set or hash belongs, a number that is not one — wedges no
 * key and takes no replica off shared state: the engine reads it as an entry nobody can decode, the next
 * write replaces it, and a structure of the wrong type is deleted and made again.
 */
class RedisForeignValuesTests {

	private static RedisTestServer redis;

	private static RedisClient client;

	private static StatefulRedisConnection<String, byte[]> raw;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private final String prefix = "foreign-" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeAll
	static void startRedis() {
		redis = new RedisTestServer();
		client = RedisClient.create(redis.uri());
		raw = client.connect(RedisEngine.CODEC);
	}

	@AfterAll
	static void stopRedis() {
		raw.close();
		client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		redis.close();
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	private static RedisCommands<String, byte[]> redis() {
		return raw.sync();
	}

	private RedisEngine engine() {
		RedisEngine engine = RedisEngine.builder(client).prefix(this.prefix).contextCapacity(2).build();
		this.closeables.add(engine);
		return engine;
	}

	private RetryCluster cluster(RedisEngine engine) {
		RetryCluster cluster = RetryCluster.builder(engine).timeout(Duration.ofSeconds(5)).clusterBudget("shop").build();
		this.closeables.add(cluster);
		return cluster;
	}

	private static RetryTemplate inventory(RetryCluster cluster) {
		RetryRegistry registry = cluster.bind(RetryRegistry.builder())
			.instance("inventory", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none()))
			.build();
		cluster.attach(registry);
		return registry.template("inventory");
	}

	private String contextKey(String key) {
		return this.prefix + ":{inventory}:context:" + key;
	}

	/** A stateful call on the key sees no failure before it and stores its own; nothing falls back. */
	private static void failsOnceFromScratch(RetryTemplate template, String key) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			assertThat(context.getRetryCount()).isZero();
			throw new IOException("broken");
		}, RetryState.of(key)));
	}

	@Test
	void aHashAListOrAnOversizedStringAtAContextKeyIsUndecodableAndReplacedWithoutAFallback() {
		RedisEngine engine = engine();
		RetryCluster cluster = cluster(engine);
		RetryTemplate template = inventory(cluster);
		redis().hset(contextKey("hash"), "field", new byte[] { 1 });
		redis().rpush(contextKey("list"), new byte[] { 1 });
		redis().set(contextKey("oversized"), new byte[8 * 1024 * 1024]);
		for (String key : List.of("hash", "list", "oversized")) {
			failsOnceFromScratch(template, key);
			assertThat(redis().type(contextKey(key))).as(key).isEqualTo("string");
			assertThat(SnapshotCodec.jdkValuesOnly().decode(engine.getContext("inventory", key)).getRetryCount()).as(key)
				.isEqualTo(1);
		}
		assertThat(cluster.status().undecodableEntries()).isEqualTo(3);
		assertThat(cluster.status().fallbacks()).isZero();
		assertThat(cluster.status().reachable()).isTrue();
	}

	@Test
	void aValueTooLongToBeASnapshotIsNeverSentToTheReplica() {
		RedisEngine engine = engine();
		redis().set(contextKey("oversized"), new byte[SnapshotCodec.MAX_BYTES + 1]);
		redis().hset(contextKey("hash"), "field", new byte[] { 1 });
		byte[] read = engine.getContext("inventory", "oversized");
		assertThat(read).isNotNull().hasSizeLessThan(SnapshotCodec.MAX_BYTES);
		assertThat(engine.getContext("inventory", "hash")).containsExactly(read);
		assertThat(engine.compareAndSetContext("inventory", "hash", new byte[] { 1 }, new byte[] { 2 })).isFalse();
		assertThat(engine.compareAndSetContext("inventory", "hash", read, null)).isTrue();
		assertThat(redis().exists(contextKey("hash"))).isZero();
		assertThat(engine.compareAndSetContext("inventory", "oversized", read, new byte[] { 3 })).isTrue();
		assertThat(engine.getContext("inventory", "oversized")).containsExactly(3);
	}

	@Test
	void aListingNeverHandsOnAnIndexMemberLongerThanAnyKeyAndDropsItFromTheIndex() {
		RedisEngine engine = engine();
		RetryCluster cluster = cluster(engine);
		RetryTemplate template = inventory(cluster);
		failsOnceFromScratch(template, "good");
		byte[] forged = new byte[4 * 1024 * 1024];
		java.util.Arrays.fill(forged, (byte) 'k');
		String index = this.prefix + ":{inventory}:contexts";
		redis().zadd(index, System.currentTimeMillis() + 60_000, forged);
		assertThat(engine.contexts("inventory", 10)).extracting(stored -> stored.key()).containsExactly("good");
		assertThat(redis().zscore(index, forged)).as("the forged member, removed from the index").isNull();
		assertThat(engine.contextCount("inventory")).isEqualTo(1);
		assertThat(cluster.status().fallbacks()).isZero();
	}

	@Test
	void aListingSkipsNothingAndFailsOnNothingItCannotRead() {
		RedisEngine engine = engine();
		RetryCluster cluster = cluster(engine);
		RetryTemplate template = inventory(cluster);
		failsOnceFromScratch(template, "good");
		redis().zadd(this.prefix + ":{inventory}:contexts", System.currentTimeMillis(), "hash".getBytes(StandardCharsets.UTF_8));
		redis().hset(contextKey("hash"), "field", new byte[] { 1 });
		assertThat(engine.contexts("inventory", 10)).extracting(stored -> stored.key()).containsExactlyInAnyOrder("good", "hash");
		assertThat(template.getContextCache().entries(10)).extracting(entry -> entry.key()).containsExactly("good");
		assertThat(cluster.status().fallbacks()).isZero();
	}

	@Test
	void aStringWhereTheEngineKeepsASortedSetOrAHashIsReplacedAndTheFleetStaysOnSharedState() {
		RedisEngine engine = engine();
		RetryCluster cluster = cluster(engine);
		RetryTemplate template = inventory(cluster);
		for (String structure : List.of(".members", ".budgets", ".circuit-states", ":{inventory}:contexts",
				":{inventory}:evictions")) {
			redis().set(this.prefix + structure, "x".getBytes(StandardCharsets.US_ASCII));
		}
		cluster.synchronise();
		assertThat(engine.members()).isEqualTo(1);
		assertThat(engine.exchangeBudget("shop", -1_000, 10_000)).isEqualTo(9_000);
		engine.storeCircuitState("pricing", "FORCE_OPEN");
		assertThat(engine.circuitState("pricing")).isEqualTo("FORCE_OPEN");
		engine.publishCircuit("pricing|CLOSE|somewhere");
		for (String key : List.of("a", "b", "c")) {
			failsOnceFromScratch(template, key);
		}
		assertThat(engine.contextCount("inventory")).isEqualTo(2);
		assertThat(engine.contextEvictions("inventory")).isEqualTo(1);
		assertThat(template.getContextCache().evictions()).isEqualTo(1);
		assertThat(redis().type(this.prefix + ".members")).isEqualTo("zset");
		assertThat(redis().type(this.prefix + ":{inventory}:evictions")).isEqualTo("hash");
		assertThat(cluster.status().fallbacks()).isZero();
		assertThat(cluster.status().reachable()).isTrue();
	}

	@Test
	void aNonNumberInTheEvictionsHashCountsAsNoEvictionAndTheNextEvictionRepairsIt() {
		RedisEngine engine = engine();
		RetryCluster cluster = cluster(engine);
		RetryTemplate template = inventory(cluster);
		String evictions = this.prefix + ":{inventory}:evictions";
		redis().hset(evictions, engine.localMember(), "many".getBytes(StandardCharsets.US_ASCII));
		assertThat(engine.contextEvictions("inventory")).isZero();
		assertThat(template.getContextCache().evictions()).isZero();
		for (String key : List.of("a", "b", "c")) {
			failsOnceFromScratch(template, key);
		}
		assertThat(new String(redis().hget(evictions, engine.localMember()), StandardCharsets.US_ASCII)).isEqualTo("1");
		assertThat(engine.contextEvictions("inventory")).isEqualTo(1);
		assertThat(cluster.status().fallbacks()).isZero();
	}

	@Test
	void aStoredBudgetThatIsNotAFiniteNumberStartsFullAgain() {
		RedisEngine engine = engine();
		for (String stored : List.of("nan", "-nan", "inf", "-inf", "1e400", "many", "")) {
			redis().hset(this.prefix + ".budgets", "shop", stored.getBytes(StandardCharsets.US_ASCII));
			assertThat(engine.exchangeBudget("shop", -1_000, 10_000)).as(stored).isEqualTo(9_000);
		}
		redis().hset(this.prefix + ".budgets", "shop", "2500.75".getBytes(StandardCharsets.US_ASCII));
		assertThat(engine.exchangeBudget("shop", 0, 10_000)).isEqualTo(2_500);
	}

	@Test
	void anOversizedCircuitStateIsNotSentToTheReplica() {
		RedisEngine engine = engine();
		redis().hset(this.prefix + ".circuit-states", "pricing", new byte[8 * 1024 * 1024]);
		assertThat(engine.circuitState("pricing")).isNotNull().hasSizeLessThan(100).isNotIn("FORCE_OPEN", "CLOSE");
	}

	@Test
	void membersWithAHeartbeatInTheFutureAreNotCounted() {
		RedisEngine engine = engine();
		redis().zadd(this.prefix + ".members", 9e15, "forged".getBytes(StandardCharsets.UTF_8));
		assertThat(engine.members()).isEqualTo(1);
	}

	@Test
	void instanceNamesCannotReachIntoAnotherInstancesKeys() {
		RedisEngine engine = engine();
		assertThat(engine.compareAndSetContext("a}:context:b", "c", null, new byte[] { 1 })).isTrue();
		assertThat(engine.getContext("a", "b}:context:c")).isNull();
		assertThat(engine.compareAndSetContext("a", "b}:context:c", null, new byte[] { 2 })).isTrue();
		assertThat(engine.getContext("a}:context:b", "c")).containsExactly(1);
		assertThat(engine.contextCount("a}:context:b")).isEqualTo(1);
		assertThat(engine.contextCount("a")).isEqualTo(1);
		assertThat(engine.compareAndSetContext("x%7Dy", "k", null, new byte[] { 3 })).isTrue();
		assertThat(engine.getContext("x}y", "k")).isNull();
		assertThat(redis().keys(this.prefix + ":*"))
			.allSatisfy(key -> assertThat(key.substring(this.prefix.length() + 2)).doesNotContain("{"));
	}

}
