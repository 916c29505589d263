package dev.retrykit.spring.boot.autoconfigure.endpoint;

import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpoint;
import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpointWebExtension;
import dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries;
import java.time.Duration;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

class RetriesEndpointAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, RetriesEndpointAutoConfiguration.class))
		.withUserConfiguration(RetryRegistryConfiguration.class);

	@Test
	void providesTheEndpointAndItsWebExtensionWhenExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=retries")
			.run((context) -> assertThat(context).hasSingleBean(RetriesEndpoint.class)
				.hasSingleBean(RetriesEndpointWebExtension.class));
	}

	@Test
	void backsOffWhenNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(RetriesEndpoint.class)
			.doesNotHaveBean(RetriesEndpointWebExtension.class));
	}

	@Test
	void backsOffWhenAccessIsNone() {
		// Upper case: the runner's environment lacks the lenient conversion a real application has.
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=retries",
					"management.endpoint.retries.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RetriesEndpoint.class));
	}

	@Test
	void backsOffWithoutARetryRegistry() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, RetriesEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=retries")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RetriesEndpoint.class));
	}

	@Test
	void backsOffWithoutTheActuator() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=retries")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RetriesEndpoint.class));
	}

	@Test
	void masksValuesByDefault() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=retries").run((context) -> {
			TestRetryRegistries.failStatefully(context.getBean(RetryRegistry.class), SECRET);
			assertThat(context.getBean(RetriesEndpoint.class).retry("inventory").contextCache().entries().get(0).key())
				.isEqualTo("******");
		});
	}

	@Test
	void bindsShowValuesAndRoles() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=retries",
					"management.endpoint.retries.show-values=when-authorized", "management.endpoint.retries.roles=OPS,ADMIN")
			.run((context) -> {
				RetriesEndpointProperties properties = context.getBean(RetriesEndpointProperties.class);
				assertThat(properties.getShowValues()).isEqualTo(Show.WHEN_AUTHORIZED);
				assertThat(properties.getRoles()).containsExactlyInAnyOrder("OPS", "ADMIN");
			});
	}

	@Test
	void usesTheApplicationsTimeSourceForTheAgeOfCacheEntries() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=retries").run((context) -> {
			TestRetryRegistries.failStatefully(context.getBean(RetryRegistry.class), "order-1");
			context.getBean(VirtualTime.class).advance(Duration.ofMinutes(5));
			assertThat(context.getBean(RetriesEndpoint.class).retry("inventory").contextCache().entries().get(0).age())
				.isEqualTo("5m");
		});
	}

	@Test
	void keepsAUserDefinedEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=retries")
			.withUserConfiguration(CustomEndpointConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(RetriesEndpoint.class).hasBean("customRetriesEndpoint"));
	}

	@Configuration(proxyBeanMethods = false)
	static class RetryRegistryConfiguration {

		@Bean
		VirtualTime virtualTime() {
			return new VirtualTime();
		}

		@Bean
		RetryRegistry retryRegistry(VirtualTime virtualTime) {
			return TestRetryRegistries.create(virtualTime);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomEndpointConfiguration {

		@Bean
		RetriesEndpoint customRetriesEndpoint(RetryRegistry registry, VirtualTime time) {
			return new RetriesEndpoint(registry, Show.ALWAYS, time);
		}

	}

}
