package dev.retrykit.spring.boot.autoconfigure.cluster;

import java.util.function.Consumer;

import com.hazelcast.core.HazelcastInstance;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplateCustomizer;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.cluster.RetryClusterBuilder;
import dev.retrykit.hazelcast.HazelcastClusterEngine;
import dev.retrykit.hazelcast.HazelcastClusterEngineBuilder;
import dev.retrykit.spi.TimeSource;
import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryProperties;
import dev.retrykit.spring.boot.metrics.RetryClusterMetricsBinder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Shares retry state among a service's replicas when {@code retry.cluster.enabled=true}: a
 * {@link RetryCluster} on the application's {@code HazelcastInstance} bean (embedded member or client)
 * holds every instance's stateful contexts, and the budgets and circuit breakers whose {@code scope} is
 * {@code cluster}. Startup fails, naming {@code retry.cluster.enabled}, when there is no
 * {@code HazelcastInstance} bean, or when Hazelcast or {@code retry-hazelcast} is not on the class path
 * (the failure names the dependency to add).
 * Runs after Spring Boot's Hazelcast auto-configuration, named by class so that it is not needed at
 * compile time.
 */
@AutoConfiguration(before = RetryAutoConfiguration.class,
		afterName = { "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
				"org.springframework.boot.autoconfigure.hazelcast.HazelcastAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "retry.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("retry.cluster.enabled")
public final class RetryClusterAutoConfiguration {

	private static final String HAZELCAST = "com.hazelcast.core.HazelcastInstance";

	private static final String HAZELCAST_ENGINE = "dev.retrykit.hazelcast.HazelcastClusterEngine";

	private static final String HAZELCAST_MODULE = "dev.retrykit:retry-hazelcast";

	/** The cluster on Hazelcast. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { HAZELCAST, HAZELCAST_ENGINE })
	static class HazelcastClusterConfiguration {

		@Bean(initMethod = "start", destroyMethod = "close")
		@ConditionalOnMissingBean
		RetryCluster retryCluster(RetryProperties properties, ObjectProvider<HazelcastInstance> hazelcast,
				ObjectProvider<TimeSource> timeSource) {
			HazelcastInstance instance = hazelcast.getIfAvailable();
			if (instance == null) {
				throw missing("no HazelcastInstance bean is defined",
						"Define a HazelcastInstance bean (an embedded member or a client) or set retry.cluster.enabled=false.");
			}
			RetryProperties.Cluster cluster = properties.getCluster();
			RetryProperties.ContextCache cache = properties.getContextCache();
			HazelcastClusterEngineBuilder engine = HazelcastClusterEngine.builder(instance);
			set("retry.cluster.prefix", cluster.getPrefix(), engine::prefix);
			set("retry.context-cache.ttl", cache.getTtl(), engine::contextTtl);
			set("retry.context-cache.capacity", cache.getCapacity(), engine::contextCapacity);
			RetryClusterBuilder builder = RetryCluster.builder(engine.build());
			set("retry.cluster.timeout", cluster.getTimeout(), builder::timeout);
			set("retry.cluster.sync-interval", cluster.getSyncInterval(), builder::syncInterval);
			set("retry.cluster.attributes.allowed", cluster.getAttributes().getAllowed(), builder::allowedAttributes);
			return builder.timeSource(timeSource.getIfAvailable(() -> TimeSource.SYSTEM))
				.contextCacheCapacity(cache.getCapacity()).build();
		}

		/** Applies a setting, turning the builder's refusal into a startup failure that names the property. */
		private static <T> void set(String property, T value, Consumer<T> setter) {
			try {
				setter.accept(value);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidRetryPropertyException(property, value, String.valueOf(ex.getMessage()),
						"Update '" + property + "' in your configuration.", ex);
			}
		}

		/** Every instance keeps its stateful contexts in the cluster. */
		@Bean
		RetryTemplateCustomizer retryClusterContextCache(RetryCluster cluster) {
			return (name, builder) -> builder.contextCache(cluster.contextCache(name));
		}

		/** Shares the cluster-scoped budgets and breakers of the instances, now and as they are created. */
		@Bean
		SmartInitializingSingleton retryClusterScopes(RetryProperties properties, RetryCluster cluster,
				ObjectProvider<RetryRegistry> registry) {
			ClusterScopes scopes = new ClusterScopes(properties);
			return () -> registry.ifAvailable(r -> r.addListener(template -> scopes.attach(template, cluster)));
		}

		/** {@code retry.cluster.fallbacks} and {@code retry.cluster.members}. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
		static class ClusterMetricsConfiguration {

			@Bean
			@ConditionalOnMissingBean
			RetryClusterMetricsBinder retryClusterMetricsBinder(RetryCluster cluster) {
				return new RetryClusterMetricsBinder(cluster);
			}

		}

	}

	/**
	 * Fails startup: the cluster is enabled but its engine is not complete on the class path. Both
	 * Hazelcast and retrykit's module for it are needed; either one alone (Hazelcast is often present for
	 * other reasons) would otherwise leave the application local-only without a word.
	 */
	@Configuration(proxyBeanMethods = false)
	@Conditional(MissingEngineCondition.class)
	static class MissingEngineConfiguration {

		@Bean
		Object retryClusterEngineCheck(ConfigurableListableBeanFactory beanFactory) {
			ClassLoader classLoader = beanFactory.getBeanClassLoader();
			boolean hazelcast = ClassUtils.isPresent(HAZELCAST, classLoader);
			boolean module = ClassUtils.isPresent(HAZELCAST_ENGINE, classLoader);
			String reason = (hazelcast) ? "no cluster engine module is on the class path: Hazelcast is on the class path, "
					+ "but " + HAZELCAST_MODULE + ", which shares retry state through it, is not"
					: (module) ? HAZELCAST_MODULE + " is on the class path, but Hazelcast (com.hazelcast:hazelcast) is not"
							: "no cluster engine module is on the class path (retrykit's engine module is "
									+ HAZELCAST_MODULE + ", with com.hazelcast:hazelcast)";
			String add = (hazelcast) ? "Add the dependency " + HAZELCAST_MODULE
					: (module) ? "Add the dependency com.hazelcast:hazelcast"
							: "Add the dependencies " + HAZELCAST_MODULE + " and com.hazelcast:hazelcast";
			throw missing(reason, add + " (and a HazelcastInstance bean), or set retry.cluster.enabled=false.");
		}

	}

	/** Matches when Hazelcast or retry-hazelcast is missing from the class path. */
	static final class MissingEngineCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ClassLoader classLoader = context.getClassLoader();
			boolean complete = ClassUtils.isPresent(HAZELCAST, classLoader)
					&& ClassUtils.isPresent(HAZELCAST_ENGINE, classLoader);
			return complete ? ConditionOutcome.noMatch("Hazelcast and " + HAZELCAST_MODULE + " are on the class path")
					: ConditionOutcome.match("Hazelcast or " + HAZELCAST_MODULE + " is missing from the class path");
		}

	}

	private static InvalidRetryPropertyException missing(String reason, String action) {
		return new InvalidRetryPropertyException("retry.cluster.enabled", true,
				reason + "; the cluster shares retry state through the application's HazelcastInstance", action, null);
	}

}
