package dev.retrykit.spring.boot.autoconfigure.metrics;

import dev.retrykit.RetryRegistry;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.spring.boot.autoconfigure.RetryReconfigurer;
import dev.retrykit.spring.boot.metrics.RetryClusterMetricsBinder;
import dev.retrykit.spring.boot.metrics.RetryMetricsBinder;
import dev.retrykit.spring.boot.metrics.RetryReconfigurationMetrics;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the retry meters: a {@link RetryMetricsBinder} for the {@link RetryRegistry}
 * bean, applied by Boot to every {@link MeterRegistry} after its customizers and filters, so that
 * common tags ({@code management.metrics.tags.*}) land on the retry meters too; beside it the meters of the live
 * reconfiguration ({@link RetryReconfigurationMetrics}) and, when the retry cluster is on, of the cluster
 * ({@link RetryClusterMetricsBinder}).
 *
 * <p>Active when Micrometer is on the class path and both a {@link MeterRegistry} and a
 * {@link RetryRegistry} bean exist. Ordered by class name, so that neither the metrics module nor the
 * main retry auto-configuration is needed at compile time.
 */
@AutoConfiguration(afterName = { "dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration",
		"dev.retrykit.spring.boot.autoconfigure.cluster.RetryClusterAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, RetryRegistry.class })
public final class RetryMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryMetricsBinder retryMetricsBinder(RetryRegistry retryRegistry) {
		return new RetryMetricsBinder(retryRegistry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RetryReconfigurer.class)
	RetryReconfigurationMetrics retryReconfigurationMetrics(RetryReconfigurer reconfigurer) {
		return new RetryReconfigurationMetrics(reconfigurer::getAppliedCount, reconfigurer::getRejectedCount);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RetryCluster.class)
	RetryClusterMetricsBinder retryClusterMetricsBinder(RetryCluster cluster) {
		return new RetryClusterMetricsBinder(cluster);
	}

}
