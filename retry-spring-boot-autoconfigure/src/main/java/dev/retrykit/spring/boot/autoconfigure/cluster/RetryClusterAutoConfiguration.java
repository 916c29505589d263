package dev.retrykit.spring.boot.autoconfigure.cluster;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplateCustomizer;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.cluster.RetryClusterBuilder;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.TimeSource;
import dev.retrykit.spring.boot.autoconfigure.ClusterSettings;
import dev.retrykit.spring.boot.autoconfigure.ClusterScopes;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryProperties;
import dev.retrykit.spring.boot.cluster.RetryClusterLifecycle;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Shares retry state among a service's replicas when {@code retry.cluster.enabled=true}: a
 * {@link RetryCluster} on a {@link ClusterEngine} holds every instance's stateful contexts, and the budgets
 * and circuit breakers whose {@code scope} is {@code cluster}. The engine is the one
 * {@code retry.cluster.engine} names ({@code hazelcast}: the application's {@code HazelcastInstance} bean;
 * {@code redis}: its Redis connection as {@code spring.data.redis.*} configures it), or, when that is empty,
 * the only one whose module and connection are present; an application may also define its own
 * {@code ClusterEngine} bean. Everything but the engine is the same for every engine and lives here: the
 * cluster, its lifecycle, the context caches and the cluster scopes; each engine's configuration only
 * offers its engine. The cluster's meters are bound by the metrics auto-configuration, with the other retry
 * meters. Startup fails naming the property when the choice is ambiguous or
 * the chosen engine's module or connection is missing ({@link ClusterEngineChoice}).
 * Runs after Spring Boot's Hazelcast and Redis auto-configurations, named by class so that they are not
 * needed at compile time.
 */
@AutoConfiguration(before = RetryAutoConfiguration.class,
		afterName = { "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
				"org.springframework.boot.autoconfigure.hazelcast.HazelcastAutoConfiguration",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "retry.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("retry.cluster.enabled")
@Import({ HazelcastEngineConfiguration.class, RedisEngineConfiguration.class })
public final class RetryClusterAutoConfiguration {

	/** The name of the engine bean built here, which {@link RetryClusterLifecycle} closes. */
	static final String ENGINE_BEAN = "retryClusterEngine";

	/**
	 * The engine {@code retry.cluster.engine} chooses among those the engines' configurations offer. Closed
	 * by the cluster's lifecycle, not at destruction, which comes after the connection factories stopped.
	 */
	@Bean(name = ENGINE_BEAN, destroyMethod = "")
	@ConditionalOnMissingBean({ ClusterEngine.class, RetryCluster.class })
	ClusterEngine retryClusterEngine(RetryProperties properties, ObjectProvider<ClusterEngineCandidate> candidates,
			ConfigurableListableBeanFactory beanFactory) {
		return ClusterEngineChoice.choose(properties.getCluster().getEngine(), candidates.orderedStream().toList(),
				beanFactory.getBeanClassLoader()).engine().get();
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	RetryCluster retryCluster(RetryProperties properties, ClusterEngine engine, ObjectProvider<TimeSource> timeSource) {
		RetryProperties.Cluster cluster = properties.getCluster();
		RetryClusterBuilder builder = RetryCluster.builder(engine);
		ClusterSettings.apply("retry.cluster.timeout", cluster.getTimeout(), builder::timeout);
		ClusterSettings.apply("retry.cluster.sync-interval", cluster.getSyncInterval(), builder::syncInterval);
		ClusterSettings.apply("retry.cluster.attributes.allowed", cluster.getAttributes().getAllowed(),
				builder::allowedAttributes);
		return builder.timeSource(timeSource.getIfAvailable(() -> TimeSource.SYSTEM))
			.contextCacheCapacity(properties.getContextCache().getCapacity())
			.build();
	}

	/**
	 * Synchronises from the context's start until it stops, while the engine's connection is open, then
	 * closes the engine if it was built here (one the application defined is the application's to close).
	 */
	@Bean
	RetryClusterLifecycle retryClusterLifecycle(RetryCluster cluster, ConfigurableListableBeanFactory beanFactory) {
		String factory = beanFactory.containsBeanDefinition(ENGINE_BEAN)
				? beanFactory.getBeanDefinition(ENGINE_BEAN).getFactoryBeanName() : null;
		boolean builtHere = factory != null && beanFactory.getType(factory) == RetryClusterAutoConfiguration.class;
		Object engine = (builtHere) ? beanFactory.getBean(ENGINE_BEAN) : null;
		return new RetryClusterLifecycle(cluster, (engine instanceof AutoCloseable closeable) ? closeable : null);
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

}
