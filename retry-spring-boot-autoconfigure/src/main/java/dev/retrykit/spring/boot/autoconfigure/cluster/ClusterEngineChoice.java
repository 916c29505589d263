package dev.retrykit.spring.boot.autoconfigure.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.retrykit.spring.boot.autoconfigure.ClusterSettings;
import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Chooses the cluster's engine among the candidates the engines' configurations offer, by
 * {@code retry.cluster.engine}: the named one, or, when it is empty, the only one whose module and
 * connection are both there. Every way this can fail is a startup failure naming the property, its value
 * and what would do: an unknown name, both engines present and none chosen, the chosen engine's module or
 * connection missing, no engine at all. Stateless.
 */
final class ClusterEngineChoice {

	private ClusterEngineChoice() {
	}

	/** The engines retrykit has a module for, with what each needs on the class path and in the context. */
	enum Engine {

		HAZELCAST("hazelcast", "dev.retrykit:retry-hazelcast", "dev.retrykit.hazelcast.HazelcastClusterEngine",
				"Hazelcast", "com.hazelcast:hazelcast", "com.hazelcast.core.HazelcastInstance",
				"a HazelcastInstance bean (an embedded member or a client)"),

		REDIS("redis", "dev.retrykit:retry-redis", "dev.retrykit.redis.RedisEngine",
				"Lettuce", "io.lettuce:lettuce-core", "io.lettuce.core.RedisClient",
				"a Redis connection on Lettuce (org.springframework.boot:spring-boot-starter-data-redis, configured by "
						+ "spring.data.redis.*, or a Lettuce RedisClient bean)");

		final String id;

		final String module;

		final String engineClass;

		final String client;

		final String clientArtifact;

		final String clientClass;

		final String connection;

		Engine(String id, String module, String engineClass, String client, String clientArtifact, String clientClass,
				String connection) {
			this.id = id;
			this.module = module;
			this.engineClass = engineClass;
			this.client = client;
			this.clientArtifact = clientArtifact;
			this.clientClass = clientClass;
			this.connection = connection;
		}

		/** @return what is missing from the class path for this engine, or {@code null} if nothing is */
		@Nullable String missingModule(@Nullable ClassLoader classLoader) {
			boolean module = ClassUtils.isPresent(this.engineClass, classLoader);
			boolean client = ClassUtils.isPresent(this.clientClass, classLoader);
			if (module && client) {
				return null;
			}
			return (client) ? this.client + " is on the class path, but " + this.module + ", which shares retry state "
					+ "through it, is not" : (module) ? this.module + " is on the class path, but " + this.client + " ("
							+ this.clientArtifact + ") is not"
							: this.module + " is not on the class path";
		}

		String dependencies(@Nullable ClassLoader classLoader) {
			boolean client = ClassUtils.isPresent(this.clientClass, classLoader);
			boolean module = ClassUtils.isPresent(this.engineClass, classLoader);
			String add = (client || !module) ? this.module : this.clientArtifact;
			if (!client && !module) {
				add = add + " (with " + this.clientArtifact + ")";
			}
			return "add the dependency " + add + " and " + this.connection;
		}

		static Optional<Engine> named(String id) {
			for (Engine engine : values()) {
				if (engine.id.equals(id)) {
					return Optional.of(engine);
				}
			}
			return Optional.empty();
		}

	}

	/**
	 * @param engine the value of {@code retry.cluster.engine}
	 * @throws InvalidRetryPropertyException if it is neither empty nor an engine's name
	 */
	static void requireKnown(String engine) {
		ClusterSettings.requireKnownEngine(engine);
	}

	/**
	 * @param engine the value of {@code retry.cluster.engine}
	 * @param candidates the engines whose module and client are on the class path
	 * @param classLoader the application's class loader, to say which dependency is missing
	 * @return the chosen candidate
	 * @throws InvalidRetryPropertyException naming {@code retry.cluster.engine}, or
	 * {@code retry.cluster.enabled} when no engine can run and none was chosen
	 */
	static ClusterEngineCandidate choose(String engine, List<ClusterEngineCandidate> candidates,
			@Nullable ClassLoader classLoader) {
		requireKnown(engine);
		String wanted = normalized(engine);
		if (wanted.isEmpty()) {
			return chooseAlone(candidates, classLoader);
		}
		Engine chosen = Engine.named(wanted).orElseThrow();
		ClusterEngineCandidate candidate = candidates.stream().filter(c -> c.name().equals(wanted)).findFirst()
			.orElse(null);
		String others = "or set retry.cluster.engine to " + other(chosen) + " or leave it empty";
		if (candidate == null) {
			String missing = String.valueOf(chosen.missingModule(classLoader));
			throw new InvalidRetryPropertyException("retry.cluster.engine", engine,
					"it chooses " + wanted + ", but " + missing,
					capitalized(chosen.dependencies(classLoader)) + ", " + others + ".", null);
		}
		if (!candidate.connected()) {
			throw new InvalidRetryPropertyException("retry.cluster.engine", engine,
					"it chooses " + wanted + ", but " + candidate.missingConnection(),
					"Define " + chosen.connection + ", " + others + ".", null);
		}
		return candidate;
	}

	/** No engine named: the only one that can run, if there is exactly one. */
	private static ClusterEngineCandidate chooseAlone(List<ClusterEngineCandidate> candidates,
			@Nullable ClassLoader classLoader) {
		List<ClusterEngineCandidate> connected = candidates.stream().filter(ClusterEngineCandidate::connected).toList();
		if (connected.size() == 1) {
			return connected.get(0);
		}
		if (connected.size() > 1) {
			String names = connected.stream().map(ClusterEngineCandidate::name).collect(Collectors.joining(" and "));
			throw new InvalidRetryPropertyException("retry.cluster.engine", "",
					"both " + names + " have their module and connection, and it is empty, so it does not say which "
							+ "one shares retry state; it must be hazelcast or redis",
					"Set retry.cluster.engine to hazelcast or redis.", null);
		}
		List<String> problems = new ArrayList<>();
		List<String> remedies = new ArrayList<>();
		for (Engine engine : Engine.values()) {
			ClusterEngineCandidate candidate = candidates.stream().filter(c -> c.name().equals(engine.id)).findFirst()
				.orElse(null);
			if (candidate == null) {
				problems.add(engine.id + ": " + engine.missingModule(classLoader));
				remedies.add(engine.dependencies(classLoader));
			}
			else {
				problems.add(engine.id + ": " + candidate.missingConnection());
				remedies.add("define " + engine.connection);
			}
		}
		String reason = (candidates.isEmpty()) ? "no cluster engine module is on the class path" : "no cluster engine can run";
		throw new InvalidRetryPropertyException("retry.cluster.enabled", true,
				reason + " (" + String.join("; ", problems) + "); the cluster shares retry state through the "
						+ "application's HazelcastInstance or Redis connection",
				capitalized(String.join(", or ", remedies)) + ", or set retry.cluster.enabled=false.", null);
	}

	private static String other(Engine engine) {
		return (engine == Engine.HAZELCAST) ? Engine.REDIS.id : Engine.HAZELCAST.id;
	}

	private static String normalized(String engine) {
		return engine.trim().toLowerCase(Locale.ROOT);
	}

	private static String capitalized(String text) {
		return Character.toUpperCase(text.charAt(0)) + text.substring(1);
	}

}
