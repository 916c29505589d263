package dev.retrykit.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** What the Redis engine does beyond every engine's contract: its keys, its exact LRU bound, its scripts, its senders. */
class RedisEngineTests {

	private static RedisTestServer redis;

	private static RedisClient client;

	private static StatefulRedisConnection<String, byte[]> raw;

	private final List<AutoCloseable> closeables = new ArrayList<>();

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

	private RedisEngine engine(RedisEngineBuilder builder) {
		RedisEngine engine = builder.build();
		this.closeables.add(engine);
		return engine;
	}

	private static RedisCommands<String, byte[]> redis() {
		return raw.sync();
	}

	@Test
	void anInstancesKeysCarryThePrefixAndShareOneHashSlot() {
		RedisEngine engine = engine(RedisEngine.builder(client).prefix("layout"));
		engine.compareAndSetContext("payments", "order-1", null, new byte[] { 1 });
		engine.compareAndSetContext("payments", "order-2", null, new byte[] { 2 });
		engine.exchangeBudget("shop", -1_000, 10_000);
		engine.storeCircuitState("inventory", "FORCE_OPEN");
		engine.members();
		assertThat(redis().keys("layout*")).containsExactlyInAnyOrder("layout:{payments}:context:order-1",
				"layout:{payments}:context:order-2", "layout:{payments}:contexts", "layout.budgets", "layout.circuit-states",
				"layout.members");
		assertThat(List.of("layout:{payments}:context:order-1", "layout:{payments}:context:order-2", "layout:{payments}:contexts",
				"layout:{payments}:evictions").stream().map(SlotHash::getSlot).distinct()).hasSize(1);
		assertThat(redis().ttl("layout:{payments}:context:order-1")).isBetween(3500L, 3600L);
		assertThat(redis().hget("layout.budgets", "shop")).asString(StandardCharsets.US_ASCII).isEqualTo("9000");
	}

	@Test
	void beyondTheCapacityTheLeastRecentlyUsedContextIsEvictedAndCountedForTheWriter() {
		RedisEngine writer = engine(RedisEngine.builder(client).prefix("lru").contextCapacity(3));
		RedisEngine other = engine(RedisEngine.builder(client).prefix("lru").contextCapacity(3));
		for (String key : List.of("a", "b", "c")) {
			assertThat(writer.compareAndSetContext("payments", key, null, key.getBytes(StandardCharsets.UTF_8))).isTrue();
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
		}
		assertThat(other.getContext("payments", "a")).isNotNull();
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
		assertThat(writer.compareAndSetContext("payments", "d", null, new byte[] { 'd' })).isTrue();
		assertThat(other.getContext("payments", "b")).isNull();
		assertThat(other.contexts("payments", 10)).extracting(stored -> stored.key()).containsExactly("d", "a", "c");
		assertThat(other.contextCount("payments")).isEqualTo(3);
		assertThat(writer.contextEvictions("payments")).isEqualTo(1);
		assertThat(other.contextEvictions("payments")).isZero();
		assertThat(redis().exists("lru:{payments}:context:b")).isZero();
	}

	@Test
	void readsKeepAContextAliveAndAnExpiredOneLeavesTheCountToo() {
		RedisEngine engine = engine(RedisEngine.builder(client).prefix("sliding").contextTtl(Duration.ofSeconds(1)));
		assertThat(engine.compareAndSetContext("payments", "k", null, new byte[] { 1 })).isTrue();
		long readUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_500);
		while (System.nanoTime() - readUntil < 0) {
			assertThat(engine.getContext("payments", "k")).as("read within its TTL of the previous read").containsExactly(1);
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (engine.contextCount("payments") != 0 && System.nanoTime() - deadline < 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
		assertThat(engine.contextCount("payments")).isZero();
		assertThat(engine.compareAndSetContext("payments", "k", null, null)).as("absent").isTrue();
	}

	@Test
	void scriptsAreSentAgainWhenRedisForgotThem() {
		RedisEngine engine = engine(RedisEngine.builder(client).prefix("flush"));
		assertThat(engine.compareAndSetContext("payments", "k", null, new byte[] { 1 })).isTrue();
		redis().scriptFlush();
		assertThat(engine.compareAndSetContext("payments", "k", new byte[] { 1 }, new byte[] { 2 })).isTrue();
		assertThat(engine.exchangeBudget("shop", 0, 1_000)).isEqualTo(1_000);
		assertThat(engine.getContext("payments", "k")).containsExactly(2);
	}

	@Test
	void aMessageCountsAsARegisteredMembersOnlyIfThatMemberHeartbeats() throws InterruptedException {
		RedisEngine receiver = engine(RedisEngine.builder(client).prefix("senders"));
		RedisEngine member = engine(RedisEngine.builder(client).prefix("senders"));
		Map<String, String> senders = new ConcurrentHashMap<>();
		CountDownLatch four = new CountDownLatch(4);
		this.closeables.add(receiver.subscribeCircuits((message, sender) -> {
			senders.put(String.valueOf(message), sender);
			four.countDown();
		}));
		member.publishCircuit("TRIP|r|real");
		publishRaw("senders.circuits", "made-up-member TRIP|r|claimed");
		publishRaw("senders.circuits", "TRIP|r|no-envelope");
		publishRaw("senders.circuits", member.localMember() + " TRIP|r|forged-but-registered");
		assertThat(four.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(senders).containsEntry("TRIP|r|real", member.localMember())
			.containsEntry("TRIP|r|claimed", MemberCheck.UNREGISTERED)
			.containsEntry("TRIP|r|no-envelope", MemberCheck.UNREGISTERED)
			// What Redis cannot tell apart: anyone the ACL lets publish can name a registered member.
			.containsEntry("TRIP|r|forged-but-registered", member.localMember());
	}

	private static void publishRaw(String channel, String payload) {
		redis().publish(channel, payload.getBytes(StandardCharsets.UTF_8));
	}

	@Test
	void aReplicaThatStopsHeartbeatingIsNoLongerCounted() {
		Duration timeout = Duration.ofMillis(300);
		RedisEngine staying = engine(RedisEngine.builder(client).prefix("members").memberTimeout(timeout));
		RedisEngine leaving = engine(RedisEngine.builder(client).prefix("members").memberTimeout(timeout));
		leaving.members();
		assertThat(staying.members()).isEqualTo(2);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (staying.members() != 1 && System.nanoTime() - deadline < 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
		assertThat(staying.members()).isEqualTo(1);
	}

	@Test
	void aReplicaThatClosesItsEngineIsNoLongerCountedFromThen() {
		RedisEngine staying = engine(RedisEngine.builder(client).prefix("leaving"));
		RedisEngine leaving = RedisEngine.builder(client).prefix("leaving").build();
		leaving.members();
		assertThat(staying.members()).isEqualTo(2);
		leaving.close();
		// Not after the member timeout (10 s by default): a replica restarted in its place counts 2, not 3.
		assertThat(staying.members()).isEqualTo(1);
	}

	@Test
	void anEngineOnTheApplicationsOwnConnectionsLeavesThemOpen() {
		StatefulRedisConnection<String, byte[]> connection = client.connect(RedisEngine.CODEC);
		StatefulRedisPubSubConnection<String, byte[]> pubSub = client.connectPubSub(RedisEngine.CODEC);
		RedisEngine engine = RedisEngine.builder(connection, pubSub).prefix("given").build();
		assertThat(engine.exchangeBudget("shop", -1, 10)).isEqualTo(9);
		engine.close();
		assertThat(connection.isOpen()).isTrue();
		assertThat(pubSub.isOpen()).isTrue();
		connection.close();
		pubSub.close();
	}

	/**
	 * Counts the commands Redis ran for one stateful call that fails, and for the next one, which finds the
	 * count and succeeds: the read of the entry, then its write as one compare-and-set against what the read
	 * found (or the removal).
	 */
	@Test
	void aStatefulCallReadsItsEntryOnceAndWritesItWithOneCompareAndSet() {
		RetryCluster cluster = RetryCluster.builder(engine(RedisEngine.builder(client).prefix("trips")))
			.timeout(Duration.ofSeconds(5)).build();
		this.closeables.add(cluster);
		RetryRegistry registry = cluster.bind(RetryRegistry.builder())
			.instance("payments", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())).build();
		RetryTemplate template = registry.template("payments");
		// Once first, so that Redis has cached the scripts (the first EVALSHA of each is answered NOSCRIPT).
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("broken");
		}, RetryState.of("order-0")));
		template.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(), RetryState.of("order-0"));
		RetryState state = RetryState.of("order-1");
		long before = scriptCalls();
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("broken");
		}, state));
		long failed = scriptCalls();
		assertThat(template.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(), state))
			.isEqualTo(1);
		long succeeded = scriptCalls();
		assertThat(failed - before).as("round trips of a failing stateful call").isEqualTo(2);
		assertThat(succeeded - failed).as("round trips of a succeeding stateful call").isEqualTo(2);
	}

	/** The scripts run: every operation of a stateful call is one (commandstats also counts the commands inside them). */
	private static long scriptCalls() {
		String stats = redis().info("commandstats");
		long calls = 0;
		Matcher matcher = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)").matcher(stats);
		while (matcher.find()) {
			calls += Long.parseLong(matcher.group(2));
		}
		return calls;
	}

	@Test
	void theBuilderRefusesWhatWouldBreakTheKeys() {
		RedisEngineBuilder builder = RedisEngine.builder(client);
		assertThatIllegalArgumentException().isThrownBy(() -> builder.prefix("a{b}")).withMessageContaining("'{'");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.prefix(" ")).withMessageContaining("blank");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.contextCapacity(0)).withMessage(
				"Invalid context cache capacity (0): must be 1 or greater");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.contextTtl(Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> builder.memberTimeout(Duration.ofNanos(5)));
	}

}
