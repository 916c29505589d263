package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import dev.retrykit.cluster.SnapshotCodec;
import dev.retrykit.spring.boot.autoconfigure.RetryInstanceProperties.Scope;
import org.jspecify.annotations.Nullable;

/**
 * Checks the cluster's part of {@code retry.*} before any bean is created, for the early validation of
 * the properties: a {@code scope: cluster} needs {@code retry.cluster.enabled=true}, a quorum is 1 or
 * more, and with the cluster enabled its timeout and sync interval are positive, its prefix not blank and
 * the shared contexts' TTL at least a second, and the allow-list of attribute classes admits neither the
 * JDK nor a whole top-level package (the rules of {@code RetryClusterBuilder}, {@code SnapshotCodec} and
 * the engines' builders, which the auto-configuration applies again), and {@code retry.cluster.engine}, enabled or not,
 * is empty or names an engine. Refers to no engine's type, so that it runs without any engine on the class
 * path. Stateless.
 */
public final class ClusterSettings {

	/** The names {@code retry.cluster.engine} accepts (besides empty): those of the engine modules. */
	public static final List<String> ENGINES = List.of("hazelcast", "redis");

	private ClusterSettings() {
	}

	/**
	 * Checks the cluster's part of {@code retry.*}.
	 * @param properties the bound {@code retry.*} properties
	 * @throws InvalidRetryPropertyException naming the first invalid property
	 */
	public static void validate(RetryProperties properties) {
		new ClusterScopes(properties);
		RetryProperties.Cluster cluster = properties.getCluster();
		requireKnownEngine(cluster.getEngine());
		if (!cluster.isEnabled()) {
			refuseClusterScopes(properties);
			return;
		}
		positive("retry.cluster.timeout", cluster.getTimeout());
		apply("retry.cluster.attributes.allowed", cluster.getAttributes().getAllowed(), SnapshotCodec::allowing);
		positive("retry.cluster.sync-interval", cluster.getSyncInterval());
		if (cluster.getPrefix().isBlank()) {
			throw new InvalidRetryPropertyException("retry.cluster.prefix", cluster.getPrefix(), "it must not be blank",
					"Update 'retry.cluster.prefix' to the start of the names of the engine's maps and topic.", null);
		}
		Duration ttl = properties.getContextCache().getTtl();
		if (ttl == null || ttl.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidRetryPropertyException("retry.context-cache.ttl", ttl, "it must be 1s or longer",
					"Update 'retry.context-cache.ttl' to how long a shared context is kept after its last write.", null);
		}
	}

	/**
	 * Checks {@code retry.cluster.engine}: empty, or the name of an engine.
	 * @param engine the value
	 * @throws InvalidRetryPropertyException if it names no engine
	 */
	public static void requireKnownEngine(String engine) {
		String name = engine.trim().toLowerCase(Locale.ROOT);
		if (!name.isEmpty() && !ENGINES.contains(name)) {
			throw new InvalidRetryPropertyException("retry.cluster.engine", engine,
					"it must be hazelcast or redis, or empty to use the one whose module and connection are present",
					"Update 'retry.cluster.engine' to hazelcast or redis.", null);
		}
	}

	/**
	 * Applies a setting to an engine's or the cluster's builder, turning the builder's refusal into a
	 * startup failure that names the property.
	 * @param property the property's path
	 * @param value its value
	 * @param setter the builder's setter
	 * @param <T> the value's type
	 * @throws InvalidRetryPropertyException if the builder refuses the value
	 */
	public static <T> void apply(String property, T value, Consumer<T> setter) {
		try {
			setter.accept(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRetryPropertyException(property, value, String.valueOf(ex.getMessage()),
					"Update '" + property + "' in your configuration.", ex);
		}
	}

	private static void positive(String property, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidRetryPropertyException(property, value, "it must be positive",
					"Update '" + property + "' to a positive duration, e.g. 100ms.", null);
		}
	}

	/** Without the cluster nothing can be shared: a cluster scope would silently stay local. */
	private static void refuseClusterScopes(RetryProperties properties) {
		refuse("retry.defaults", properties.getDefaults());
		properties.getConfigs().forEach((name, config) -> refuse("retry.configs." + name, config));
		properties.getInstances().forEach((name, instance) -> refuse("retry.instances." + name, instance));
	}

	private static void refuse(String prefix, RetryInstanceProperties level) {
		refuse(prefix + ".budget.scope", level.getBudget().getScope());
		refuse(prefix + ".circuit-breaker.scope", level.getCircuitBreaker().getScope());
	}

	private static void refuse(String property, @Nullable Scope scope) {
		if (scope == Scope.CLUSTER) {
			throw new InvalidRetryPropertyException(property, "cluster",
					"scope cluster shares state through the retry cluster, but retry.cluster.enabled is false",
					"Set retry.cluster.enabled=true (with a cluster engine: a HazelcastInstance bean or a Redis connection), or set '"
							+ property + "' to local.",
					null);
		}
	}

}
