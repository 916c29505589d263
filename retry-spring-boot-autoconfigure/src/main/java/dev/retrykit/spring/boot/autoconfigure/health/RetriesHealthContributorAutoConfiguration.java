package dev.retrykit.spring.boot.autoconfigure.health;

import dev.retrykit.spring.boot.health.RetriesHealthIndicator;
import dev.retrykit.RetryRegistry;
import dev.retrykit.cluster.RetryCluster;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code retries} health contributor (bean {@code retriesHealthIndicator}),
 * when Boot's health support is on the class path, a {@link RetryRegistry} bean exists and
 * {@code management.health.retries.enabled} is not {@code false}.
 */
@AutoConfiguration(afterName = "dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration",
		beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(RetryRegistry.class)
@ConditionalOnEnabledHealthIndicator("retries")
@EnableConfigurationProperties(RetriesHealthIndicatorProperties.class)
public final class RetriesHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "retriesHealthIndicator")
	RetriesHealthIndicator retriesHealthIndicator(RetryRegistry retryRegistry,
			RetriesHealthIndicatorProperties properties, ObjectProvider<RetryCluster> cluster) {
		return new RetriesHealthIndicator(retryRegistry, properties.isDownWhenOpen(), cluster.getIfAvailable());
	}

}
