package dev.retrykit.spring.boot.autoconfigure.metrics;

import dev.retrykit.spring.boot.metrics.RetryClusterMetricsBinder;
import dev.retrykit.spring.boot.metrics.RetryMetricsBinder;
import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class RetryMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				RetryMetricsAutoConfiguration.class));

	@Test
	void bindsTheRetryMetersToTheMeterRegistry() {
		this.contextRunner.withUserConfiguration(RetryRegistryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RetryMetricsBinder.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			context.getBean(RetryRegistry.class).template("inventory").execute((retryContext) -> "ok");
			assertThat(meters.get("retry.calls").tag("name", "inventory").tag("kind", "successful_without_retry")
				.functionCounter().count()).isEqualTo(1);
		});
	}

	@Test
	void appliesCommonTagsToTheRetryMeters() {
		this.contextRunner.withUserConfiguration(RetryRegistryConfiguration.class)
			.withPropertyValues("management.metrics.tags.application=shop").run((context) -> {
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("retry.attempts").tag("name", "inventory").functionCounter().getId()
					.getTag("application")).isEqualTo("shop");
			});
	}

	@Test
	void bindsNoClusterMetersWithoutARetryCluster() {
		this.contextRunner.withUserConfiguration(RetryRegistryConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(RetryMetricsBinder.class)
				.doesNotHaveBean(RetryClusterMetricsBinder.class));
	}

	@Test
	void backsOffWithoutARetryRegistry() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(RetryMetricsBinder.class));
	}

	@Test
	void backsOffWithoutAMeterRegistry() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RetryMetricsAutoConfiguration.class))
			.withUserConfiguration(RetryRegistryConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RetryMetricsBinder.class));
	}

	@Test
	void backsOffWithoutMicrometer() {
		this.contextRunner.withUserConfiguration(RetryRegistryConfiguration.class)
			.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
			.run((context) -> assertThat(context).doesNotHaveBean(RetryMetricsBinder.class));
	}

	@Test
	void keepsAUserDefinedBinder() {
		this.contextRunner.withUserConfiguration(RetryRegistryConfiguration.class, CustomBinderConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(RetryMetricsBinder.class)
				.hasBean("customBinder"));
	}

	@Configuration(proxyBeanMethods = false)
	static class RetryRegistryConfiguration {

		@Bean
		RetryRegistry retryRegistry() {
			return RetryRegistry.builder().virtualTime(new VirtualTime()).instance("inventory", null, (config) -> { })
				.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomBinderConfiguration {

		@Bean
		RetryMetricsBinder customBinder(RetryRegistry retryRegistry) {
			return new RetryMetricsBinder(retryRegistry);
		}

	}

}
