package dev.retrykit.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.cluster.SnapshotCodec;
import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Faults of a real {@code redis-server}: killed with SIGKILL in the middle of a stateful run and started
 * again (empty) on the same port, or frozen with SIGSTOP for longer than {@code retry.cluster.timeout}.
 * No call waits longer than the timeout (plus the slack of a busy build machine), and the replicas agree
 * again once Redis is back.
 */
class RedisFaultTests {

	private static final Duration TIMEOUT = Duration.ofMillis(250);

	/** What a loaded 2-core build machine may add to a call that waited the timeout. */
	private static final Duration SLACK = Duration.ofMillis(500);

	private RedisTestServer redis;

	private ClientResources resources;

	private RedisClient client;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@BeforeEach
	void startRedis() {
		this.redis = new RedisTestServer();
		// Reconnect quickly once the server is back (Lettuce's default backs off up to 30s).
		this.resources = ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(50))).build();
		this.client = RedisClient.create(this.resources,
				RedisURI.builder().withHost("127.0.0.1").withPort(this.redis.port()).withTimeout(Duration.ofSeconds(2)).build());
		this.client.setOptions(ClientOptions.builder().autoReconnect(true).build());
	}

	@AfterEach
	void stopRedis() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		this.resources.shutdown(0, 2, TimeUnit.SECONDS);
		this.redis.close();
	}

	private RetryCluster replica() {
		RedisEngine engine = RedisEngine.builder(this.client).prefix("faults").build();
		RetryCluster cluster = RetryCluster.builder(engine).timeout(TIMEOUT).clusterCircuit("pricing", 1).build();
		this.closeables.add(engine);
		this.closeables.add(cluster);
		return cluster;
	}

	private static RetryRegistry registry(RetryCluster cluster) {
		RetryRegistry registry = cluster.bind(RetryRegistry.builder())
			.instance("payments", null, config -> config.maxAttempts(5).backoff(BackoffPolicy.none()))
			.instance("pricing", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.none())
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").build()))
			.build();
		cluster.attach(registry);
		return registry;
	}

	@Test
	void aReplicaGoesOnWhileRedisIsKilledAndWritesBackWhenItIsStartedAgain() {
		RetryCluster a = replica();
		RetryCluster b = replica();
		RetryTemplate onA = registry(a).template("payments");
		RetryTemplate onB = registry(b).template("payments");
		failOnce(onA, "order-1");
		failOnce(onB, "order-1");
		assertThat(countSeen(onA, "order-1")).isEqualTo(2);

		this.redis.kill();
		assertWithinTimeout(() -> failOnce(onA, "order-2"));
		assertWithinTimeout(() -> failOnce(onA, "order-2"));
		assertWithinTimeout(() -> failOnce(onB, "order-3"));
		assertThat(a.status().reachable()).isFalse();
		assertThat(a.status().fallbacks()).isPositive();

		this.redis.restart();
		awaitTrue("replica a reaches Redis again", () -> {
			a.synchronise();
			return a.status().reachable();
		});
		awaitTrue("replica b reaches Redis again", () -> {
			b.synchronise();
			return b.status().reachable();
		});
		assertThat(storedCount("order-2")).as("two failures during the outage, written back").isEqualTo(2);
		assertThat(storedCount("order-3")).isEqualTo(1);
		assertThat(countSeen(onB, "order-2")).isEqualTo(2);
		assertThat(countSeen(onA, "order-3")).isEqualTo(1);
	}

	@Test
	void aFrozenRedisMakesNoCallWaitLongerThanTheTimeoutAndTheReplicasAgreeOnceItThaws() {
		RetryCluster a = replica();
		RetryCluster b = replica();
		RetryRegistry onA = registry(a);
		RetryRegistry onB = registry(b);
		failOnce(onA.template("payments"), "order-1");
		CircuitBreaker pricingOnB = onB.template("pricing").getCircuitBreaker();

		this.redis.freeze();
		try {
			assertWithinTimeout(() -> failOnce(onA.template("payments"), "order-2"));
			assertWithinTimeout(() -> failOnce(onB.template("payments"), "order-3"));
			assertWithinTimeout(() -> onA.template("pricing").getCircuitBreaker().forceOpen());
			assertWithinTimeout(a::synchronise);
			assertWithinTimeout(b::synchronise);
			assertThat(List.of(a, b)).allSatisfy(replica -> assertThat(replica.status().reachable()).isFalse());
			assertThat(pricingOnB.isForcedOpen()).isFalse();
		}
		finally {
			this.redis.thaw();
		}

		awaitTrue("both replicas reach Redis again and b learns the circuit a opened", () -> {
			a.synchronise();
			b.synchronise();
			return a.status().reachable() && b.status().reachable() && pricingOnB.isForcedOpen();
		});
		assertThat(storedCount("order-1")).isEqualTo(1);
		assertThat(storedCount("order-2")).isEqualTo(1);
		assertThat(storedCount("order-3")).isEqualTo(1);
		assertThat(countSeen(onB.template("payments"), "order-2")).isEqualTo(1);
		assertThat(countSeen(onA.template("payments"), "order-3")).isEqualTo(1);
	}

	private int storedCount(String key) {
		try (RedisEngine reader = RedisEngine.builder(this.client).prefix("faults").build()) {
			return SnapshotCodec.jdkValuesOnly().decode(reader.getContext("payments", key)).getRetryCount();
		}
	}

	private static void assertWithinTimeout(Runnable call) {
		long start = System.nanoTime();
		call.run();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plus(SLACK));
	}

	private static void failOnce(RetryTemplate template, String key) {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> template.execute(context -> {
			throw new IOException("broken");
		}, RetryState.of(key)));
	}

	private static int countSeen(RetryTemplate template, String key) {
		return template.execute((RetryCallback<Integer, RuntimeException>) context -> context.getRetryCount(), RetryState.of(key));
	}

	private static void awaitTrue(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Waited 20s in vain for: " + what);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
	}

}
