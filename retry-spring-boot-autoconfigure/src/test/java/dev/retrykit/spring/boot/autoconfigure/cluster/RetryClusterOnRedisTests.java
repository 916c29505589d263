package dev.retrykit.spring.boot.autoconfigure.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.hazelcast.HazelcastClusterEngine;
import dev.retrykit.redis.RedisEngine;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesDescriptor;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpoint;
import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import dev.retrykit.spring.boot.autoconfigure.endpoint.RetriesEndpointAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.health.RetriesHealthContributorAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.metrics.RetryMetricsAutoConfiguration;
import dev.retrykit.spring.boot.health.RetriesHealthIndicator;
import dev.retrykit.testing.hazelcast.HazelcastTestCluster;
import dev.retrykit.testing.redis.RedisTestServer;
import dev.retrykit.spring.boot.cluster.RetryClusterLifecycle;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The cluster on Redis: replicas of an application, each a Spring context whose Redis connection Spring Boot
 * configures from {@code spring.data.redis.*}, sharing one real {@code redis-server} on 127.0.0.1; and how
 * {@code retry.cluster.engine} chooses between Redis and Hazelcast, or fails startup saying why.
 */
class RetryClusterOnRedisTests {

	private static RedisTestServer redis;

	private static HazelcastTestCluster hazelcast;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RetryAutoConfiguration.class,
				RetryClusterAutoConfiguration.class, EndpointAutoConfiguration.class,
				RetriesEndpointAutoConfiguration.class, RetriesHealthContributorAutoConfiguration.class,
				MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, RetryMetricsAutoConfiguration.class))
		.withPropertyValues("retry.cluster.enabled=true", "retry.cluster.timeout=5s",
				"management.endpoints.web.exposure.include=retries",
				"retry.instances.inventory.max-attempts=3", "retry.instances.inventory.backoff.type=none",
				"retry.instances.inventory.budget.enabled=true", "retry.instances.inventory.budget.scope=cluster",
				"retry.instances.inventory.budget.name=shop-downstream",
				"retry.instances.inventory.circuit-breaker.enabled=true",
				"retry.instances.inventory.circuit-breaker.scope=cluster",
				"retry.instances.inventory.circuit-breaker.quorum=1",
				"retry.instances.local.circuit-breaker.enabled=true");

	@BeforeAll
	static void startServers() {
		redis = new RedisTestServer();
		hazelcast = new HazelcastTestCluster(1);
	}

	@AfterAll
	static void stopServers() {
		hazelcast.close();
		redis.close();
	}

	/** A replica on the test server, through Boot's Redis connection; its keys start with the prefix. */
	private ApplicationContextRunner replica(String prefix) {
		return this.contextRunner.withPropertyValues("retry.cluster.prefix=" + prefix, "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port());
	}

	@Test
	void withOnlyTheRedisModuleTheRedisEngineIsChosenOnBootsConnection() {
		replica("alone").withClassLoader(new FilteredClassLoader("com.hazelcast.", "dev.retrykit.hazelcast."))
			.run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ClusterEngine.class)).isInstanceOf(RedisEngine.class);
				assertThat(context.getBean(RetriesEndpoint.class).retries().cluster().engine()).isEqualTo("redis");
			});
	}

	@Test
	void withBothModulesButOnlyARedisConnectionRedisIsChosen() {
		replica("auto").run(context -> assertThat(context.getBean(ClusterEngine.class))
			.isInstanceOf(RedisEngine.class));
	}

	@Test
	void withoutSpringDataRedisTheApplicationsLettuceClientBeanIsUsed() {
		try (io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri())) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryClusterAutoConfiguration.class))
				.withClassLoader(new FilteredClassLoader("org.springframework.data.redis.", "com.hazelcast."))
				.withPropertyValues("retry.cluster.enabled=true", "retry.cluster.prefix=lettuce-only")
				.withBean(io.lettuce.core.RedisClient.class, () -> client, definition -> definition.setDestroyMethodName(""))
				.run(context -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(ClusterEngine.class)).isInstanceOf(RedisEngine.class);
					assertThat(context.getBean(RetryCluster.class).status().reachable()).isTrue();
				});
		}
	}

	@Test
	void retryClusterEngineChoosesWhenBothEnginesHaveTheirConnection() {
		ApplicationContextRunner both = replica("chosen").withBean(HazelcastInstance.class, () -> hazelcast.member(0));
		both.withPropertyValues("retry.cluster.engine=redis").run(context -> {
			assertThat(context.getBean(ClusterEngine.class)).isInstanceOf(RedisEngine.class);
			assertThat(context.getBean(RetriesEndpoint.class).retries().cluster().engine()).isEqualTo("redis");
		});
		both.withPropertyValues("retry.cluster.engine=hazelcast").run(context -> assertThat(
				context.getBean(ClusterEngine.class)).isInstanceOf(HazelcastClusterEngine.class));
	}

	@Test
	void bothEnginesAndNoChoiceFailsStartupNamingRetryClusterEngine() {
		replica("ambiguous").withBean(HazelcastInstance.class, () -> hazelcast.member(0)).run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.engine");
			assertThat(failure.getReason()).contains("hazelcast and redis", "must be hazelcast or redis");
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.cluster.engine'");
			assertThat(analysis.getAction()).contains("retry.cluster.engine to hazelcast or redis");
		});
	}

	@Test
	void redisChosenWithoutItsModuleFailsStartupNamingTheModule() {
		replica("no-module").withPropertyValues("retry.cluster.engine=redis")
			.withClassLoader(new FilteredClassLoader("dev.retrykit.redis."))
			.run(context -> {
				InvalidRetryPropertyException failure = invalidProperty(context);
				assertThat(failure.getProperty()).isEqualTo("retry.cluster.engine");
				assertThat(failure.getValue()).isEqualTo("redis");
				assertThat(failure.getReason()).contains("Lettuce is on the class path", "dev.retrykit:retry-redis");
				assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
					.contains("dev.retrykit:retry-redis", "hazelcast");
			});
	}

	@Test
	void redisChosenWithoutAConnectionFailsStartupNamingTheConnection() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryClusterAutoConfiguration.class))
			.withPropertyValues("retry.cluster.enabled=true", "retry.cluster.engine=redis")
			.withBean(HazelcastInstance.class, () -> hazelcast.member(0))
			.run(context -> {
				InvalidRetryPropertyException failure = invalidProperty(context);
				assertThat(failure.getProperty()).isEqualTo("retry.cluster.engine");
				assertThat(failure.getReason()).contains("no Redis connection", "spring.data.redis");
				assertThat(failure.getMessage()).contains("'redis'");
			});
	}

	@Test
	void hazelcastChosenWithoutAHazelcastInstanceFailsStartupNamingIt() {
		replica("no-hazelcast").withPropertyValues("retry.cluster.engine=hazelcast").run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.engine");
			assertThat(failure.getReason()).contains("no HazelcastInstance bean");
		});
		replica("no-hazelcast").withPropertyValues("retry.cluster.engine=hazelcast")
			.withClassLoader(new FilteredClassLoader("dev.retrykit.hazelcast."))
			.run(context -> assertThat(invalidProperty(context).getReason()).contains("dev.retrykit:retry-hazelcast"));
	}

	@Test
	void aRedisClusterConnectionFailsStartupSayingTheEngineDoesNotTakeItYet() {
		this.contextRunner
			.withPropertyValues("retry.cluster.engine=redis", "spring.data.redis.cluster.nodes=127.0.0.1:" + redis.port())
			.run(context -> {
				InvalidRetryPropertyException failure = invalidProperty(context);
				assertThat(failure.getProperty()).isEqualTo("retry.cluster.engine");
				assertThat(failure.getReason()).contains("Redis Cluster", "standalone or Sentinel");
			});
	}

	@Test
	void anUnknownEngineFailsStartupNamingTheValueAndWhatIsAllowed() {
		for (String enabled : new String[] { "true", "false" }) {
			replica("unknown").withPropertyValues("retry.cluster.enabled=" + enabled, "retry.cluster.engine=zookeeper",
					"retry.instances.inventory.budget.scope=local", "retry.instances.inventory.circuit-breaker.scope=local")
				.run(context -> {
					InvalidRetryPropertyException failure = invalidProperty(context);
					assertThat(failure.getProperty()).isEqualTo("retry.cluster.engine");
					assertThat(failure.getValue()).isEqualTo("zookeeper");
					assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
						.contains("'zookeeper'", "'retry.cluster.engine'", "hazelcast or redis");
				});
		}
	}

	@Test
	void twoReplicasShareStatefulCountsBudgetsAndCircuitsThroughRedis() {
		replica("two").run(first -> replica("two").run(second -> {
			assertThat(first).hasNotFailed();
			assertThat(second).hasNotFailed();
			assertStatefulCountContinues(first, second);
			assertBudgetIsShared(first, second);
			assertCircuitIsShared(first, second);
			assertEndpointHealthAndMetricsShowRedis(second);
		}));
	}

	@Test
	void stoppingTheContextClosesTheEnginesConnectionsBeforeBootsConnectionFactoryStops() {
		long before = clients();
		replica("closed").run(context -> {
			assertThat(clients()).isEqualTo(before + 2);
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			RetryClusterLifecycle lifecycle = context.getBean(RetryClusterLifecycle.class);
			assertThat(lifecycle.getPhase()).isGreaterThan(factory.getPhase());
			lifecycle.stop();
			assertThat(lifecycle.isRunning()).isFalse();
			assertThat(factory.isRunning()).isTrue();
			awaitTrue(() -> clients() == before, "the engine's two connections to be closed");
		});
	}

	@Test
	void anEngineTheApplicationDefinesIsUsedAndLeftOpen() {
		try (io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
				RedisEngine engine = RedisEngine.builder(client).prefix("own").build()) {
			// No destroy method: Spring would close an AutoCloseable bean itself; this one is the test's.
			replica("own").withBean(ClusterEngine.class, () -> engine, definition -> definition.setDestroyMethodName(""))
				.run(context -> {
					assertThat(context.getBean(RetryCluster.class).status().engine()).isEqualTo("redis");
					assertThat(context).doesNotHaveBean(RetryClusterAutoConfiguration.ENGINE_BEAN);
				});
			assertThat(engine.members()).isPositive();
		}
	}

	private static RetryTemplate inventory(AssertableApplicationContext context) {
		return context.getBean(RetryRegistry.class).template("inventory");
	}

	private static void assertStatefulCountContinues(AssertableApplicationContext first,
			AssertableApplicationContext second) {
		RetryState state = RetryState.of("order-7");
		for (AssertableApplicationContext replica : new AssertableApplicationContext[] { first, second, first }) {
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> inventory(replica).execute(context -> {
				throw new IOException("downstream broken");
			}, state));
		}
		// Three failures over two replicas: max-attempts 3 is spent, so the next delivery is exhausted.
		assertThatExceptionOfType(ExhaustedRetryException.class).isThrownBy(
				() -> inventory(second).execute((RetryCallback<String, IOException>) context -> "not run", state));
	}

	private static void assertBudgetIsShared(AssertableApplicationContext first, AssertableApplicationContext second) {
		for (int i = 0; i < 6; i++) {
			inventory(first).getBudget().onFailure();
		}
		first.getBean(RetryCluster.class).synchronise();
		second.getBean(RetryCluster.class).synchronise();
		// The stateful failures above took tokens too: 10 - 6 - 3 at most, never more than 4.
		assertThat(inventory(second).getBudget().getTokens()).isLessThanOrEqualTo(4.0);
		assertThat(inventory(second).getBudget().tryAcquireRetry()).isFalse();
	}

	private static void assertCircuitIsShared(AssertableApplicationContext first, AssertableApplicationContext second)
			throws InterruptedException {
		CircuitBreaker remote = inventory(second).getCircuitBreaker();
		CountDownLatch opened = new CountDownLatch(1);
		remote.addStateListener((breaker, from, to) -> {
			if (to == CircuitState.OPEN) {
				opened.countDown();
			}
		});
		first.getBean(RetriesEndpoint.class).perform("inventory", RetriesEndpoint.OPEN_CIRCUIT);
		assertThat(opened.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(remote.isForcedOpen()).isTrue();
		assertThat(second.getBean(RetryRegistry.class).template("local").getCircuitBreaker().getState())
			.isEqualTo(CircuitState.CLOSED);
	}

	private static void assertEndpointHealthAndMetricsShowRedis(AssertableApplicationContext replica) {
		RetryCluster cluster = replica.getBean(RetryCluster.class);
		awaitTrue(() -> cluster.status().members() == 2, "both replicas to heartbeat");
		RetriesDescriptor retries = replica.getBean(RetriesEndpoint.class).retries();
		assertThat(retries.cluster()).isEqualTo(new RetriesDescriptor.Cluster("redis", 2, true, 0, 0, 0, 0, 0, 0));
		assertThat(retries.instances().get("inventory").budget().scope()).isEqualTo("cluster");
		assertThat(retries.instances().get("inventory").circuit().scope()).isEqualTo("cluster");
		assertThat(replica.getBean(RetriesHealthIndicator.class).health().getDetails()).containsEntry("cluster",
				Map.of("engine", "redis", "reachable", true, "members", 2, "fallbacks", 0L));
		MeterRegistry meters = replica.getBean(MeterRegistry.class);
		assertThat(meters.get("retry.cluster.members").tag("engine", "redis").gauge().value()).isEqualTo(2.0);
	}

	/** The connections the test server has open, from {@code INFO clients}. */
	private static long clients() {
		try (io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
				var connection = client.connect()) {
			String info = connection.sync().info("clients");
			String line = info.lines().filter(l -> l.startsWith("connected_clients:")).findFirst().orElseThrow();
			return Long.parseLong(line.substring("connected_clients:".length()).trim()) - 1;
		}
	}

	/** Polls until the condition holds, for at most 10 seconds. */
	private static void awaitTrue(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
		}
	}

	private static InvalidRetryPropertyException invalidProperty(AssertableApplicationContext context) {
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidRetryPropertyException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("Startup did not fail with an InvalidRetryPropertyException", context.getStartupFailure());
	}

}
