package dev.retrykit.spring.boot.autoconfigure;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import dev.retrykit.RetryTemplate;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.spring.boot.autoconfigure.RetryInstanceProperties.Scope;
import org.jspecify.annotations.Nullable;

/**
 * Decides which instances share their budget and circuit breaker with the other replicas, from
 * {@code budget.scope}, {@code circuit-breaker.scope} and {@code circuit-breaker.quorum} as the instance
 * inherits them (itself, its base configs, then {@code retry.defaults}; an undeclared instance has the
 * defaults'), and attaches them to the cluster. Immutable and thread-safe; validated on construction.
 */
public final class ClusterScopes {

	private final RetryProperties properties;

	/**
	 * Reads the scopes of the instances and checks their quorums.
	 * @param properties the bound {@code retry.*} properties
	 * @throws InvalidRetryPropertyException if a quorum is below 1
	 */
	public ClusterScopes(RetryProperties properties) {
		this.properties = properties;
		this.properties.getInstances().keySet().forEach(this::quorum);
		quorum(null);
	}

	/**
	 * Shares the instance's budget and breaker if their scope is {@code cluster}.
	 * @param template the instance
	 * @param cluster the cluster to share them through
	 */
	public void attach(RetryTemplate template, RetryCluster cluster) {
		String name = template.getName();
		RetryBudget budget = template.getBudget();
		if (budget != null && nearest(name, p -> p.getBudget().getScope()) == Scope.CLUSTER) {
			cluster.attach(budget);
		}
		CircuitBreaker breaker = template.getCircuitBreaker();
		if (breaker != null && nearest(name, p -> p.getCircuitBreaker().getScope()) == Scope.CLUSTER) {
			cluster.attach(breaker, quorum(name));
		}
	}

	private int quorum(@Nullable String name) {
		Integer quorum = nearest(name, p -> p.getCircuitBreaker().getQuorum());
		if (quorum != null && quorum < 1) {
			String path = quorumPath(name);
			throw new InvalidRetryPropertyException(path, quorum, "the quorum must be 1 or greater",
					"Update '" + path + "' to the number of replicas that must trip before all open (1 or more).", null);
		}
		return (quorum != null) ? quorum : 1;
	}

	/** Where the instance's quorum is set: itself, one of its base configs, or the defaults. */
	private String quorumPath(@Nullable String name) {
		RetryInstanceProperties level = (name != null) ? this.properties.getInstances().get(name) : null;
		String path = "retry.instances." + name;
		Set<String> seen = new HashSet<>();
		while (level != null) {
			if (level.getCircuitBreaker().getQuorum() != null) {
				return path + ".circuit-breaker.quorum";
			}
			String base = level.getBaseConfig();
			level = (base != null && seen.add(base)) ? this.properties.getConfigs().get(base) : null;
			path = "retry.configs." + base;
		}
		return "retry.defaults.circuit-breaker.quorum";
	}

	private <T> @Nullable T nearest(@Nullable String name, Function<RetryInstanceProperties, @Nullable T> setting) {
		Map<String, RetryInstanceProperties> configs = this.properties.getConfigs();
		RetryInstanceProperties level = (name != null) ? this.properties.getInstances().get(name) : null;
		Set<String> seen = new HashSet<>();
		while (level != null) {
			T value = setting.apply(level);
			if (value != null) {
				return value;
			}
			String base = level.getBaseConfig();
			level = (base != null && seen.add(base)) ? configs.get(base) : null;
		}
		return setting.apply(this.properties.getDefaults());
	}

}
