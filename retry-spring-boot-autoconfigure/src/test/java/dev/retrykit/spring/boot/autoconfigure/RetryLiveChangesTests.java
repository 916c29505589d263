package dev.retrykit.spring.boot.autoconfigure;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Backoff;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpoint;
import dev.retrykit.spring.boot.autoconfigure.endpoint.RetriesEndpointAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.metrics.RetryMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(OutputCaptureExtension.class)
class RetryLiveChangesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				RetryMetricsAutoConfiguration.class, EndpointAutoConfiguration.class,
				RetriesEndpointAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withPropertyValues("management.endpoints.web.exposure.include=retries",
				"retry.instances.inventory.max-attempts=3");

	/** Changes the environment as a Spring Cloud refresh does, then announces the changed keys. */
	private static void refresh(AssertableApplicationContext context, String... properties) {
		Map<String, Object> values = new LinkedHashMap<>();
		for (String property : properties) {
			String[] pair = property.split("=", 2);
			values.put(pair[0], pair[1]);
		}
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refresh" + values.hashCode(), values));
		context.publishEvent(new EnvironmentChangeEvent(context, Set.copyOf(values.keySet())));
	}

	private static int attemptsOf(RetryTemplate template) {
		AtomicInteger attempts = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(retryContext -> {
			attempts.incrementAndGet();
			throw new IllegalStateException("down");
		})).isInstanceOf(IllegalStateException.class);
		return attempts.get();
	}

	private static double reconfigurations(AssertableApplicationContext context, String result) {
		return context.getBean(MeterRegistry.class).get("retry.reconfigurations").tag("result", result)
			.functionCounter().count();
	}

	@Test
	void aChangeOfAnInstancesHedgingAloneIsApplied() {
		this.runner.withPropertyValues("retry.instances.inventory.hedging.delay=50ms").run(context -> {
			RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
			assertThat(inventory.getConfig().getHedging().getDelay()).hasMillis(50);
			refresh(context, "retry.instances.inventory.hedging.delay=80ms");
			assertThat(inventory.getConfig().getHedging().getDelay()).hasMillis(80);
			refresh(context, "retry.instances.inventory.hedging.enabled=false");
			assertThat(inventory.getConfig().isHedging()).isFalse();
			assertThat(reconfigurations(context, "applied")).isEqualTo(2);
		});
	}

	@Test
	void aChangeUnderRetryAppliesToTheTemplateBeanInjectedBeforeItAndCreatesNewInstances() {
		this.runner.run(context -> {
			RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
			assertThat(attemptsOf(inventory)).isEqualTo(3);
			refresh(context, "retry.instances.inventory.max-attempts=5", "retry.instances.payments.max-attempts=2");
			assertThat(attemptsOf(inventory)).isEqualTo(5);
			assertThat(inventory.getMetrics().getAttempts()).isEqualTo(8);
			assertThat(context.getBean(dev.retrykit.RetryRegistry.class).template("payments").getConfig().getMaxAttempts())
				.isEqualTo(2);
			assertThat(reconfigurations(context, "applied")).isEqualTo(1);
			assertThat(reconfigurations(context, "rejected")).isZero();
		});
	}

	@Test
	void theMetersFollowTheBudgetAndBreakerThatALiveChangeGivesAnInstance() {
		this.runner.withPropertyValues("retry.instances.inventory.budget.max-tokens=4").run(context -> {
			RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			refresh(context, "retry.instances.inventory.budget.token-ratio=0.5",
					"retry.instances.inventory.circuit-breaker.enabled=true");
			assertThat(inventory.getBudget().getConfig().getTokenRatio()).isEqualTo(0.5);

			attemptsOf(inventory);

			assertThat(meters.get("retry.budget.tokens").tag("name", "inventory").gauge().value())
				.isEqualTo(inventory.getBudget().getTokens()).isLessThan(4.0);
			inventory.getCircuitBreaker().forceOpen();
			assertThat(meters.get("retry.circuit.state").tag("name", "inventory").tag("state", "open").gauge().value())
				.isEqualTo(1.0);
		});
	}

	@Test
	void aChangeOfASharedConfigAppliesToTheInstancesThatInheritIt() {
		this.runner.withPropertyValues("retry.configs.backend.max-attempts=2",
				"retry.instances.orders.base-config=backend").run(context -> {
					RetryTemplate orders = context.getBean("ordersRetryTemplate", RetryTemplate.class);
					refresh(context, "retry.configs.backend.max-attempts=4");
					assertThat(attemptsOf(orders)).isEqualTo(4);
					assertThat(orders.getReconfiguredAt()).isPresent();
					assertThat(context.getBean("inventoryRetryTemplate", RetryTemplate.class).getReconfiguredAt())
						.as("unchanged instance").isEmpty();
				});
	}

	@Test
	void anInstanceWithADelayHintBeanAndRetryAfterIsNotReconfiguredByAChangeOfAnotherInstance() {
		this.runner.withBean("serverHint", DelayHintExtractor.class, () -> failure -> null)
			.withPropertyValues("retry.instances.orders.delay-hint=serverHint",
					"retry.instances.orders.honor-retry-after=true")
			.run(context -> {
				refresh(context, "retry.instances.inventory.max-attempts=4");
				assertThat(context.getBean("inventoryRetryTemplate", RetryTemplate.class).getReconfiguredAt()).isPresent();
				assertThat(context.getBean("ordersRetryTemplate", RetryTemplate.class).getReconfiguredAt()).isEmpty();
			});
	}

	@Test
	void anInvalidChangeIsRejectedAsAWholeLoggedWithTheStartupFailureAnalysisAndCounted(CapturedOutput output) {
		this.runner.withPropertyValues("retry.instances.payments.max-attempts=2").run(context -> {
			RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
			refresh(context, "retry.instances.payments.max-attempts=6", "retry.instances.inventory.max-attempts=0");
			assertThat(output).contains("Rejected a change of the retry configuration; the running configuration stays.")
				.contains("'retry.instances.inventory.max-attempts'").contains("Action:");
			assertThat(attemptsOf(inventory)).isEqualTo(3);
			assertThat(context.getBean("paymentsRetryTemplate", RetryTemplate.class).getConfig().getMaxAttempts())
				.isEqualTo(2);
			assertThat(inventory.getReconfiguredAt()).isEmpty();
			assertThat(reconfigurations(context, "rejected")).isEqualTo(1);
			assertThat(reconfigurations(context, "applied")).isZero();
		});
	}

	@Test
	void anUnknownKeyInAChangeIsRejectedWithTheKeysAllowedThere(CapturedOutput output) {
		this.runner.run(context -> {
			refresh(context, "retry.instances.inventory.max-atempts=5");
			assertThat(output).contains("Rejected a change of the retry configuration").contains("max-atempts");
			assertThat(reconfigurations(context, "rejected")).isEqualTo(1);
		});
	}

	@Test
	void aChangeThatScopesABreakerToAClusterThatIsNotEnabledIsRejectedAsAtStartup(CapturedOutput output) {
		this.runner.run(context -> {
			refresh(context, "retry.instances.inventory.circuit-breaker.enabled=true",
					"retry.instances.inventory.circuit-breaker.scope=cluster");
			assertThat(output).contains("Rejected a change of the retry configuration").contains("retry.cluster.enabled");
			assertThat(context.getBean("inventoryRetryTemplate", RetryTemplate.class).getConfig().getCircuitBreaker())
				.isNull();
			assertThat(reconfigurations(context, "rejected")).isEqualTo(1);
			assertThat(reconfigurations(context, "applied")).isZero();
		});
	}

	@Test
	void aChangeOfTheClusterTimeoutToZeroIsRejectedAsAtStartup(CapturedOutput output) {
		this.runner.withPropertyValues("retry.cluster.enabled=true").run(context -> {
			refresh(context, "retry.cluster.timeout=0s");
			assertThat(output).contains("Rejected a change of the retry configuration").contains("retry.cluster.timeout");
			assertThat(reconfigurations(context, "rejected")).isEqualTo(1);
		});
	}

	@Test
	void aChangeOfOtherKeysLeavesTheRetryConfigurationAlone() {
		this.runner.run(context -> {
			refresh(context, "spring.application.name=shop");
			assertThat(reconfigurations(context, "applied")).isZero();
			assertThat(reconfigurations(context, "rejected")).isZero();
		});
	}

	@Test
	void theEndpointShowsWhenAnInstanceWasLastReconfigured() {
		this.runner.run(context -> {
			RetriesEndpoint endpoint = context.getBean(RetriesEndpoint.class);
			assertThat(endpoint.retry("inventory").reconfiguredAt()).isNull();
			refresh(context, "retry.instances.inventory.max-attempts=4");
			assertThat(endpoint.retry("inventory").reconfiguredAt()).isEqualTo(
					Instant.ofEpochMilli(context.getBean(VirtualTime.class).currentTimeMillis()).toString());
		});
	}

	@Test
	void aRetryableMethodWithInlineAttributesFollowsTheChangeOfItsInstance() {
		this.runner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withBean(Inventory.class, Inventory::new)
			.run(context -> {
				Inventory inventory = context.getBean(Inventory.class);
				assertThatThrownBy(inventory::fetch).isInstanceOf(IllegalStateException.class);
				assertThat(inventory.attempts()).isEqualTo(3);
				refresh(context, "retry.instances.inventory.max-attempts=5");
				assertThatThrownBy(inventory::fetch).isInstanceOf(IllegalStateException.class);
				assertThat(inventory.attempts()).isEqualTo(3 + 5);
			});
	}

	/** A method whose inline attribute makes it a variant of its instance. */
	static class Inventory {

		private final AtomicInteger attempts = new AtomicInteger();

		public int attempts() {
			return this.attempts.get();
		}

		@Retryable(value = "inventory", noRetryFor = IllegalArgumentException.class)
		public String fetch() {
			this.attempts.incrementAndGet();
			throw new IllegalStateException("down");
		}

	}

	@Test
	void aChangeThatTheConfigTextDoesNotShowIsApplied() {
		this.runner.withBean("emptyStock", Predicate.class, () -> new AnyResult())
			.withBean("noStock", Predicate.class, () -> new AnyResult())
			.withPropertyValues("retry.instances.inventory.retry-on-result=emptyStock")
			.run(context -> {
				RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
				String before = inventory.getConfig().toString();
				refresh(context, "retry.instances.inventory.retry-on-result=noStock");
				assertThat(inventory.getConfig().getRetryOnResult()).isSameAs(context.getBean("noStock"));
				assertThat(inventory.getConfig().toString()).isEqualTo(before);
				assertThat(inventory.getReconfiguredAt()).isPresent();
				assertThat(reconfigurations(context, "applied")).isEqualTo(1);
			});
	}

	/** A result predicate whose text is the same for every instance: only equality tells two apart. */
	static final class AnyResult implements Predicate<Object> {

		@Override
		public boolean test(Object result) {
			return false;
		}

		@Override
		public String toString() {
			return "anyResult";
		}

	}

	@Test
	void whenTheSecondInstanceOfAChangeCannotBeDerivedTheFirstStaysAsItWas(CapturedOutput output) {
		this.runner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withBean(Payments.class, Payments::new)
			.withPropertyValues("retry.instances.payments.backoff.max-delay=1s")
			.run(context -> {
				assertThatThrownBy(context.getBean(Payments.class)::pay).isInstanceOf(IllegalStateException.class);
				RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
				// inventory comes first; payments' method asks for a 500ms delay, above the new max-delay.
				refresh(context, "retry.instances.inventory.max-attempts=5",
						"retry.instances.payments.backoff.max-delay=200ms");
				assertThat(attemptsOf(inventory)).isEqualTo(3);
				assertThat(inventory.getReconfiguredAt()).isEmpty();
				assertThat(context.getBean("paymentsRetryTemplate", RetryTemplate.class).getConfig().getBackoff()
					.toString()).contains("maxDelay=1s");
				assertThat(output).contains("Rejected a change of the retry configuration; the running configuration stays.")
					.doesNotContain("which were applied");
				assertThat(reconfigurations(context, "rejected")).isEqualTo(1);
				assertThat(reconfigurations(context, "applied")).isZero();
			});
	}

	/** A method whose inline backoff delay fits only a max-delay of 500ms or more. */
	static class Payments {

		@Retryable(value = "payments", backoff = @Backoff(delay = 500))
		public String pay() {
			throw new IllegalStateException("down");
		}

	}

	@Test
	void withoutSpringCloudTheReconfigurerAppliesChangesWhenCalled() {
		this.runner.withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(EnvironmentChangeEvent.class))
			.run(context -> {
				assertThat(context).doesNotHaveBean(RetryEnvironmentChangeListener.class);
				context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refresh",
						Map.of("retry.instances.inventory.max-attempts", "2")));
				assertThat(context.getBean(RetryReconfigurer.class).reconfigure()).containsExactly("inventory");
				assertThat(attemptsOf(context.getBean("inventoryRetryTemplate", RetryTemplate.class))).isEqualTo(2);
				assertThat(context.getBean(RetryReconfigurer.class).reconfigure()).isEmpty();
			});
	}

}
