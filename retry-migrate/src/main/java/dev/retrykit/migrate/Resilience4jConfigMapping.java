package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Maps the {@code resilience4j.retry.*} and {@code resilience4j.circuitbreaker.*} properties to {@code retry.*},
 * keeping Resilience4j's behaviour; works on flat keys, so YAML and {@code .properties} share it.
 *
 * <p>Keys are normalised first ({@link #normalize}): {@code retry.instances.backendA.max-attempts}, property names
 * in kebab case, list indexes dropped. Retry {@code configs} stay configs ({@code default} becomes
 * {@code retry.defaults}, which also gets Resilience4j's own defaults where retrykit's differ: a fixed 500ms wait,
 * multiplier 1.5). A breaker is written out whole on each instance (its config chain and Resilience4j's defaults
 * resolved), since a breaker in {@code retry.defaults} would give every instance one. Stateless; thread-safe.
 */
final class Resilience4jConfigMapping {

	/** Resilience4j's own circuit breaker defaults (CircuitBreakerConfig). */
	private static final Map<String, String> BREAKER_DEFAULTS = Map.of("failure-rate-threshold", "50",
			"sliding-window-size", "100", "minimum-number-of-calls", "100", "wait-duration-in-open-state", "60s",
			"permitted-number-of-calls-in-half-open-state", "10", "sliding-window-type", "COUNT_BASED");

	/** Breaker settings with no effect on calls (retrykit always has a health contributor and events). */
	private static final Set<String> BREAKER_WITHOUT_EFFECT = Set.of("register-health-indicator",
			"allow-health-indicator-to-fail", "event-consumer-buffer-size",
			"automatic-transition-from-open-to-half-open-enabled");

	private static final Set<String> RETRY_WITHOUT_EFFECT = Set.of("event-consumer-buffer-size");

	private Resilience4jConfigMapping() {
	}

	/**
	 * The outcome.
	 * @param tree the {@code retry.*} properties
	 * @param consumed the normalised keys that are mapped (to remove)
	 * @param unmapped the normalised keys left, with the reason
	 */
	record Result(PropertyTree tree, Set<String> consumed, Map<String, String> unmapped) {
	}

	/**
	 * @param key a property key below {@code resilience4j.}, as written ({@code retry.instances.a.maxAttempts},
	 * {@code retry.instances.a.retryExceptions[0]})
	 * @return the normalised key, or null when it is not a retry or circuit breaker instance/config property
	 */
	static @Nullable String normalize(String key) {
		String[] parts = key.replaceAll("\\[\\d+]$", "").split("\\.", 4);
		if (parts.length < 4 || !(parts[0].equals("retry") || parts[0].equals("circuitbreaker"))
				|| !(parts[1].equals("instances") || parts[1].equals("configs"))) {
			return null;
		}
		return parts[0] + "." + parts[1] + "." + parts[2] + "." + kebab(parts[3]);
	}

	/**
	 * @param properties normalised keys and their values (a string or a list of strings)
	 * @return the mapping
	 */
	static Result map(Map<String, Object> properties) {
		Result result = new Result(new PropertyTree(), new LinkedHashSet<>(), new LinkedHashMap<>());
		Map<String, Map<String, Object>> retry = group(properties, "retry.");
		Map<String, Map<String, Object>> breakers = group(properties, "circuitbreaker.");
		retry.forEach((entry, settings) -> mapRetry(entry, settings, result));
		if (result.consumed().stream().anyMatch((key) -> key.startsWith("retry."))) {
			retryDefaults(retry.get("configs.default"), result.tree());
		}
		breakers.forEach((entry, settings) -> {
			settings.keySet().forEach((property) -> {
				String key = "circuitbreaker." + entry + "." + property;
				if (BREAKER_DEFAULTS.containsKey(property) || property.equals("base-config") || BREAKER_WITHOUT_EFFECT.contains(property)) {
					result.consumed().add(key);
				}
				else {
					result.unmapped().put(key, "circuit breaker setting " + property + " has no retrykit equivalent");
				}
			});
			if (entry.startsWith("instances.")) {
				mapBreaker(entry.substring("instances.".length()), resolveBreaker(settings, breakers), result.tree());
			}
		});
		return result;
	}

	private static void retryDefaults(@Nullable Map<String, Object> defaults, PropertyTree tree) {
		Map<String, Object> own = (defaults != null) ? defaults : Map.of();
		if (!own.containsKey("wait-duration")) {
			tree.put(List.of("retry", "defaults", "backoff", "delay"), "500ms");
		}
		if (!own.containsKey("enable-exponential-backoff")) {
			tree.put(List.of("retry", "defaults", "backoff", "type"), "fixed");
		}
		if (!own.containsKey("exponential-backoff-multiplier")) {
			tree.put(List.of("retry", "defaults", "backoff", "multiplier"), "1.5");
		}
		if (!own.containsKey("exponential-max-wait-duration")) {
			// Resilience4j's waits have no cap unless one is set; retrykit caps every delay (10s by default).
			tree.put(List.of("retry", "defaults", "backoff", "max-delay"), "24h");
		}
	}

	private static void mapRetry(String entry, Map<String, Object> settings, Result result) {
		List<String> target = entry.equals("configs.default") ? List.of("retry", "defaults")
				: List.of("retry", entry.substring(0, entry.indexOf('.')), entry.substring(entry.indexOf('.') + 1));
		boolean exponential = "true".equals(settings.get("enable-exponential-backoff"));
		boolean randomized = "true".equals(settings.get("enable-randomized-wait"));
		for (Map.Entry<String, Object> setting : settings.entrySet()) {
			String property = setting.getKey();
			Object value = setting.getValue();
			String key = "retry." + entry + "." + property;
			List<String> path = switch (property) {
				case "max-attempts" -> List.of("max-attempts");
				case "wait-duration" -> List.of("backoff", "delay");
				case "exponential-backoff-multiplier" -> List.of("backoff", "multiplier");
				case "exponential-max-wait-duration" -> List.of("backoff", "max-delay");
				case "retry-exceptions" -> List.of("retry-on");
				case "ignore-exceptions" -> List.of("ignore");
				case "base-config" -> "default".equals(value) ? List.of() : List.of("base-config");
				case "enable-exponential-backoff" -> {
					value = exponential ? "exponential" : "fixed";
					yield List.of("backoff", "type");
				}
				case "enable-randomized-wait" -> {
					value = randomized ? String.valueOf(settings.getOrDefault("randomized-wait-factor", "0.5")) : "0";
					yield List.of("backoff", "jitter");
				}
				case "randomized-wait-factor" -> randomized ? List.of() : null;
				default -> RETRY_WITHOUT_EFFECT.contains(property) ? List.of() : null;
			};
			if (path == null) {
				result.unmapped().put(key, property.equals("randomized-wait-factor")
						? "randomized-wait-factor without enable-randomized-wait in the same entry; set backoff.jitter on the instance"
						: "retry setting " + property + " has no retrykit equivalent");
				continue;
			}
			result.consumed().add(key);
			if (!path.isEmpty()) {
				List<String> full = new ArrayList<>(target);
				full.addAll(path);
				result.tree().put(full, value);
			}
		}
	}

	/** @return the breaker settings of an instance with its config chain and Resilience4j's defaults applied */
	private static Map<String, Object> resolveBreaker(Map<String, Object> own, Map<String, Map<String, Object>> breakers) {
		Map<String, Object> resolved = new LinkedHashMap<>();
		Map<String, Object> current = own;
		Set<Object> seen = new LinkedHashSet<>();
		while (current != null) {
			current.forEach(resolved::putIfAbsent);
			Object base = current.get("base-config");
			current = (base != null && seen.add(base)) ? breakers.get("configs." + base) : null;
		}
		Map<String, Object> defaults = breakers.get("configs.default");
		if (defaults != null) {
			defaults.forEach(resolved::putIfAbsent);
		}
		BREAKER_DEFAULTS.forEach(resolved::putIfAbsent);
		return resolved;
	}

	private static void mapBreaker(String instance, Map<String, Object> settings, PropertyTree tree) {
		List<String> breaker = List.of("retry", "instances", instance, "circuit-breaker");
		long window = Long.parseLong(String.valueOf(settings.get("sliding-window-size")));
		long minimum = Long.parseLong(String.valueOf(settings.get("minimum-number-of-calls")));
		String trip = "requests >= " + Math.min(window, minimum) + " && failureRate >= " + settings.get("failure-rate-threshold");
		tree.put(with(breaker, "enabled"), "true");
		tree.put(with(breaker, "trip"), trip);
		if ("TIME_BASED".equalsIgnoreCase(String.valueOf(settings.get("sliding-window-type")))) {
			tree.put(with(breaker, "interval"), window + "s");
		}
		// resolveBreaker fills in every setting Resilience4j has a default for.
		tree.put(with(breaker, "timeout"), Objects.requireNonNull(settings.get("wait-duration-in-open-state")));
		tree.put(with(breaker, "max-requests"),
				Objects.requireNonNull(settings.get("permitted-number-of-calls-in-half-open-state")));
	}

	private static List<String> with(List<String> path, String last) {
		List<String> full = new ArrayList<>(path);
		full.add(last);
		return full;
	}

	/** @return entries ("instances.a", "configs.b") and their settings, in order */
	private static Map<String, Map<String, Object>> group(Map<String, Object> properties, String prefix) {
		Map<String, Map<String, Object>> groups = new LinkedHashMap<>();
		properties.forEach((key, value) -> {
			if (key.startsWith(prefix)) {
				String[] parts = key.substring(prefix.length()).split("\\.", 3);
				groups.computeIfAbsent(parts[0] + "." + parts[1], (name) -> new LinkedHashMap<>()).put(parts[2], value);
			}
		});
		return groups;
	}

	private static String kebab(String name) {
		StringBuilder kebab = new StringBuilder();
		for (char c : name.toCharArray()) {
			if (Character.isUpperCase(c)) {
				kebab.append('-').append(Character.toLowerCase(c));
			}
			else {
				kebab.append(c);
			}
		}
		return kebab.toString().toLowerCase(Locale.ROOT);
	}

}
