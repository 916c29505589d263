package dev.retrykit.spring.boot.autoconfigure.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesDescriptor;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpoint;
import dev.retrykit.spring.boot.actuate.endpoint.RetryInstanceDescriptor;
import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryProperties;
import dev.retrykit.spring.boot.autoconfigure.endpoint.RetriesEndpointAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.health.RetriesHealthContributorAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.metrics.RetryMetricsAutoConfiguration;
import dev.retrykit.spring.boot.health.RetriesHealthIndicator;
import dev.retrykit.testing.hazelcast.HazelcastTestCluster;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Three replicas of an application, three Spring contexts, sharing one embedded Hazelcast cluster. */
class RetryClusterAutoConfigurationTests {

	private static HazelcastTestCluster hazelcast;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryClusterAutoConfiguration.class,
				EndpointAutoConfiguration.class, RetriesEndpointAutoConfiguration.class,
				RetriesHealthContributorAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				RetryMetricsAutoConfiguration.class))
		.withPropertyValues("retry.cluster.enabled=true", "retry.cluster.timeout=5s",
				"management.endpoints.web.exposure.include=retries",
				"management.endpoints.jmx.exposure.include=retries",
				"retry.instances.inventory.max-attempts=3", "retry.instances.inventory.backoff.type=none",
				"retry.instances.inventory.budget.enabled=true", "retry.instances.inventory.budget.scope=cluster",
				"retry.instances.inventory.budget.name=shop-downstream",
				"retry.instances.inventory.circuit-breaker.enabled=true",
				"retry.instances.inventory.circuit-breaker.scope=cluster",
				"retry.instances.inventory.circuit-breaker.quorum=1",
				"retry.instances.local.circuit-breaker.enabled=true");

	@BeforeAll
	static void startCluster() {
		hazelcast = new HazelcastTestCluster(3);
	}

	@AfterAll
	static void stopCluster() {
		hazelcast.close();
	}

	private ApplicationContextRunner replica(int member, String prefix) {
		return this.contextRunner.withPropertyValues("retry.cluster.prefix=" + prefix)
			.withBean(HazelcastInstance.class, () -> hazelcast.member(member));
	}

	@Test
	void withoutAHazelcastInstanceStartupFailsNamingRetryClusterEnabled() {
		this.contextRunner.run(context -> assertThat(context).getFailure()
			.rootCause()
			.isInstanceOfSatisfying(InvalidRetryPropertyException.class, failure -> {
				assertThat(failure.getProperty()).isEqualTo("retry.cluster.enabled");
				assertThat(failure).hasMessageContaining("no HazelcastInstance bean");
			}));
	}

	@Test
	void anInvalidClusterSettingFailsStartupNamingTheProperty() {
		replica(0, "invalid").withPropertyValues("retry.cluster.timeout=0s").run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.timeout");
			assertThat(failure).hasMessageContaining("must be positive");
		});
		replica(0, "invalid").withPropertyValues("retry.context-cache.ttl=10ms").run(
				context -> assertThat(invalidProperty(context).getProperty()).isEqualTo("retry.context-cache.ttl"));
		replica(0, "invalid").withPropertyValues("retry.instances.inventory.circuit-breaker.quorum=0").run(
				context -> assertThat(invalidProperty(context).getProperty())
					.isEqualTo("retry.instances.inventory.circuit-breaker.quorum"));
		replica(0, "invalid").withPropertyValues("retry.cluster.attributes.allowed=com.example.*.Order").run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.attributes.allowed");
			assertThat(failure).hasMessageContaining("expected a class name (com.example.Order) or a package prefix");
		});
	}

	@Test
	void anInvalidClusterSettingFailsStartupBeforeAnyBeanIsCreated() {
		// No HazelcastInstance bean: the early validation names the bad setting, not the missing bean.
		this.contextRunner.withPropertyValues("retry.cluster.sync-interval=-1s").run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.sync-interval");
			assertThat(failure).hasMessageContaining("must be positive");
		});
		this.contextRunner.withPropertyValues("retry.cluster.prefix= ").run(
				context -> assertThat(invalidProperty(context).getProperty()).isEqualTo("retry.cluster.prefix"));
		this.contextRunner.withPropertyValues("retry.defaults.circuit-breaker.quorum=0").run(
				context -> assertThat(invalidProperty(context).getProperty())
					.isEqualTo("retry.defaults.circuit-breaker.quorum"));
	}

	@Test
	void anAllowListThatAdmitsTheJdkOrAWholeTopLevelPackageFailsStartupNamingTheEntryAndWhy() {
		this.contextRunner.withPropertyValues("retry.cluster.attributes.allowed=com.example.Order,java.*").run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.attributes.allowed");
			assertThat(failure).hasMessageContaining("Invalid allowed attribute class 'java.*': the JDK's packages");
		});
		this.contextRunner.withPropertyValues("retry.cluster.attributes.allowed=org.*").run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.attributes.allowed");
			assertThat(failure).hasMessageContaining("'org.*': a one-segment package prefix");
		});
		replica(0, "invalid").withPropertyValues("retry.cluster.attributes.allowed=java.security.SignedObject").run(
				context -> assertThat(invalidProperty(context)).hasMessageContaining("never allowed"));
	}

	@Test
	void aClusterScopeWhileTheClusterIsDisabledFailsStartupNamingBothProperties() {
		this.contextRunner.withPropertyValues("retry.cluster.enabled=false").run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.instances.inventory.budget.scope");
			assertThat(failure).hasMessageContaining("retry.cluster.enabled");
		});
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class))
			.withPropertyValues("retry.configs.shared.circuit-breaker.scope=cluster")
			.run(context -> {
				InvalidRetryPropertyException failure = invalidProperty(context);
				assertThat(failure.getProperty()).isEqualTo("retry.configs.shared.circuit-breaker.scope");
				assertThat(failure).hasMessageContaining("retry.cluster.enabled");
			});
	}

	@Test
	void clusterDurationsAcceptCompoundValues() {
		replica(0, "compound").withPropertyValues("retry.cluster.timeout=1m30s", "retry.cluster.sync-interval=1s500ms",
				"retry.context-cache.ttl=1h30m").run(context -> {
					assertThat(context).hasNotFailed();
					RetryProperties properties = context.getBean(RetryProperties.class);
					assertThat(properties.getCluster().getTimeout()).isEqualTo(Duration.ofSeconds(90));
					assertThat(properties.getCluster().getSyncInterval()).isEqualTo(Duration.ofMillis(1500));
					assertThat(properties.getContextCache().getTtl()).isEqualTo(Duration.ofMinutes(90));
				});
	}

	private static InvalidRetryPropertyException invalidProperty(AssertableApplicationContext context) {
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidRetryPropertyException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("Startup did not fail with an InvalidRetryPropertyException", context.getStartupFailure());
	}

	@Test
	void withTheClusterDisabledNothingIsShared() {
		replica(0, "off").withPropertyValues("retry.cluster.enabled=false", "retry.instances.inventory.budget.scope=local",
				"retry.instances.inventory.circuit-breaker.scope=local")
			.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RetryCluster.class));
	}

	@Test
	void threeReplicasShareStatefulCountsBudgetsAndCircuitsAndShowTheCluster() {
		replica(0, "three").run(first -> replica(1, "three").run(second -> replica(2, "three").run(third -> {
			assertThat(first).hasNotFailed();
			assertStatefulCountContinues(first, second, third);
			assertBudgetIsShared(first, second);
			assertCircuitIsShared(first, third);
			assertEndpointHealthAndMetricsShowTheCluster(second);
		})));
	}

	private static RetryTemplate inventory(AssertableApplicationContext context) {
		return context.getBean(RetryRegistry.class).template("inventory");
	}

	private static void assertStatefulCountContinues(AssertableApplicationContext... replicas) {
		RetryState state = RetryState.of("order-42");
		for (AssertableApplicationContext replica : replicas) {
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> inventory(replica).execute(context -> {
				throw new IOException("downstream broken");
			}, state));
		}
		assertThatExceptionOfType(ExhaustedRetryException.class).isThrownBy(
				() -> inventory(replicas[1]).execute((RetryCallback<String, IOException>) context -> "not run", state));
	}

	private static void assertBudgetIsShared(AssertableApplicationContext first, AssertableApplicationContext second) {
		for (int i = 0; i < 6; i++) {
			inventory(first).getBudget().onFailure();
		}
		first.getBean(RetryCluster.class).synchronise();
		second.getBean(RetryCluster.class).synchronise();
		// The stateful failures above took tokens on every replica too: 10 - 6 - 3 at most, never more than 4.
		assertThat(inventory(second).getBudget().getTokens()).isLessThanOrEqualTo(4.0);
		assertThat(inventory(second).getBudget().tryAcquireRetry()).isFalse();
	}

	private static void assertCircuitIsShared(AssertableApplicationContext first, AssertableApplicationContext third)
			throws InterruptedException {
		CircuitBreaker remote = inventory(third).getCircuitBreaker();
		CountDownLatch opened = new CountDownLatch(1);
		remote.addStateListener((breaker, from, to) -> {
			if (to == CircuitState.OPEN) {
				opened.countDown();
			}
		});
		first.getBean(RetriesEndpoint.class).perform("inventory", RetriesEndpoint.OPEN_CIRCUIT);
		assertThat(opened.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(remote.isForcedOpen()).isTrue();
		assertThat(third.getBean(RetryRegistry.class).template("local").getCircuitBreaker().getState())
			.isEqualTo(CircuitState.CLOSED);
	}

	private static void assertEndpointHealthAndMetricsShowTheCluster(AssertableApplicationContext replica) {
		RetriesDescriptor retries = replica.getBean(RetriesEndpoint.class).retries();
		assertThat(retries.cluster()).isEqualTo(new RetriesDescriptor.Cluster("hazelcast", 3, true, 0, 0, 0, 0, 0, 0));
		RetryInstanceDescriptor inventory = retries.instances().get("inventory");
		assertThat(inventory.budget().scope()).isEqualTo("cluster");
		assertThat(inventory.circuit().scope()).isEqualTo("cluster");
		assertThat(retries.instances().get("local").circuit().scope()).isNull();
		assertThat(replica.getBean(RetriesHealthIndicator.class).health().getDetails()).containsEntry("cluster",
				Map.of("engine", "hazelcast", "reachable", true, "members", 3, "fallbacks", 0L));
		MeterRegistry meters = replica.getBean(MeterRegistry.class);
		assertThat(meters.get("retry.cluster.members").tag("engine", "hazelcast").gauge().value()).isEqualTo(3.0);
		assertThat(meters.get("retry.cluster.fallbacks").functionCounter().count()).isZero();
	}

}
