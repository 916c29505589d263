package dev.retrykit.spring.boot.autoconfigure.health;

import dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries;
import dev.retrykit.spring.boot.health.RetriesHealthIndicator;
import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class RetriesHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetriesHealthContributorAutoConfiguration.class))
		.withUserConfiguration(RetryRegistryConfiguration.class);

	@Test
	void providesTheRetriesHealthIndicator() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RetriesHealthIndicator.class)
			.hasBean("retriesHealthIndicator"));
	}

	@Test
	void staysUpWithAnOpenCircuitByDefault() {
		this.contextRunner.run((context) -> {
			TestRetryRegistries.openPaymentsCircuit(context.getBean(RetryRegistry.class));
			assertThat(context.getBean(RetriesHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void goesDownWithAnOpenCircuitWhenConfiguredTo() {
		this.contextRunner.withPropertyValues("management.health.retries.down-when-open=true").run((context) -> {
			TestRetryRegistries.openPaymentsCircuit(context.getBean(RetryRegistry.class));
			assertThat(context.getBean(RetriesHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
		});
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner.withPropertyValues("management.health.retries.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RetriesHealthIndicator.class));
	}

	@Test
	void backsOffWhenHealthIndicatorsAreDisabledByDefault() {
		this.contextRunner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RetriesHealthIndicator.class));
	}

	@Test
	void backsOffWithoutARetryRegistry() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RetriesHealthContributorAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RetriesHealthIndicator.class));
	}

	@Test
	void backsOffWithoutBootHealth() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RetriesHealthIndicator.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class RetryRegistryConfiguration {

		@Bean
		RetryRegistry retryRegistry() {
			return TestRetryRegistries.create(new VirtualTime());
		}

	}

}
