package dev.retrykit.spring.boot.autoconfigure.observation;

import dev.retrykit.RetryRegistry;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.observation.DefaultRetryObservationConvention;
import dev.retrykit.spring.boot.observation.RetryObservationConvention;
import dev.retrykit.spring.boot.observation.RetryObservationCustomizer;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

class RetryObservationAutoConfigurationTests {

	/** The context attribute where the observation listener keeps a call's observations: set only where it is registered. */
	private static final String LISTENER_ATTRIBUTE = "dev.retrykit.spring.boot.observation.RetryObservationListener";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, RetryAutoConfiguration.class,
				RetryObservationAutoConfiguration.class))
		.withPropertyValues("retry.instances.inventory.max-attempts=2");

	@Test
	void observesEveryCallWhenThereIsARegistryWithHandlers() {
		this.runner.withUserConfiguration(TestRegistryConfiguration.class).run(context -> {
			assertThat(observed(context.getBean(RetryRegistry.class))).isTrue();
			context.getBean(RetryRegistry.class).template("created-at-run-time").execute(retryContext -> "ok");
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			assertThat(registry).hasNumberOfObservationsWithNameEqualTo("retry.call", 2)
				.hasNumberOfObservationsWithNameEqualTo("retry.attempt", 2)
				.hasObservationWithNameEqualTo("retry.call").that().hasLowCardinalityKeyValue("name", "inventory");
		});
	}

	@Test
	void managementObservationsEnableRetryFalseTurnsThemOff() {
		this.runner.withUserConfiguration(TestRegistryConfiguration.class)
			.withPropertyValues("management.observations.enable.retry=false").run(context -> {
				assertThat(observed(context.getBean(RetryRegistry.class))).isFalse();
				assertThat(context.getBean(TestObservationRegistry.class)).doesNotHaveAnyObservation();
			});
	}

	@Test
	void aConventionBeanRenamesTheCallObservation() {
		this.runner.withUserConfiguration(TestRegistryConfiguration.class, ConventionConfiguration.class)
			.run(context -> {
				context.getBean(RetryRegistry.class).template("inventory").execute(retryContext -> "ok");
				assertThat(context.getBean(TestObservationRegistry.class))
					.hasNumberOfObservationsWithNameEqualTo("retry.call", 0)
					.hasObservationWithNameEqualTo("shop.retry").that().hasLowCardinalityKeyValue("name", "inventory");
			});
	}

	@Test
	void bootsDefaultRegistryWithoutHandlersGetsNoListener() {
		this.runner.run(context -> {
			assertThat(context.getBean(ObservationRegistry.class).isNoop()).isTrue();
			assertThat(context).hasSingleBean(RetryObservationCustomizer.class);
			assertThat(observed(context.getBean(RetryRegistry.class))).isFalse();
		});
	}

	@Test
	void backsOffWithoutAnObservationRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryObservationAutoConfiguration.class))
			.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RetryObservationCustomizer.class));
	}

	@Test
	void backsOffWithoutTheObservationApi() {
		this.runner.withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
			.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RetryObservationCustomizer.class));
	}

	/** Runs a call of {@code inventory} and tells whether the observation listener took part in it. */
	private static boolean observed(RetryRegistry registry) throws Exception {
		return registry.template("inventory").execute(retryContext -> retryContext.hasAttribute(LISTENER_ATTRIBUTE));
	}

	@Configuration(proxyBeanMethods = false)
	static class TestRegistryConfiguration {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ConventionConfiguration {

		@Bean
		RetryObservationConvention shopConvention() {
			return new DefaultRetryObservationConvention() {
				@Override
				public String getName() {
					return "shop.retry";
				}
			};
		}

	}

}
