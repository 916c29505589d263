package dev.retrykit.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The HTTP calls the instances claim ({@code retry.instances.<name>.http.*}), checked: every host pattern is a host
 * (an exact name or {@code *.suffix}), no host or service group is claimed twice, every method name is HTTP's, and
 * claims are made by instances only (a host belongs to one instance, so a shared config cannot hand it to several).
 * {@code http.methods} and {@code honor-retry-after} are inherited through {@code base-config} as any setting. Used
 * at startup.
 */
final class HttpClaims {

	/** HTTP's eight methods; any may be listed in {@code http.methods}. */
	static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE");

	/** A DNS label (underscores allowed, as some service names have them) or a bracketed IPv6 literal. */
	private static final Pattern HOST = Pattern
		.compile("([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)(\\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*|\\[[0-9a-f:.]+\\]");

	private static final String PREFIX = "retry";

	private HttpClaims() {
	}

	/**
	 * One instance's claim.
	 * @param instance the instance's name
	 * @param hosts host patterns, lower case
	 * @param groups service group names
	 * @param methods methods retried besides the idempotent ones, upper case
	 * @param honorRetryAfter whether {@code Retry-After} is read (unless {@code honor-retry-after: false})
	 * @param path the instance's property path
	 */
	record Claim(String instance, List<String> hosts, List<String> groups, Set<String> methods, boolean honorRetryAfter,
			String path) {
	}

	/**
	 * @param properties the bound properties
	 * @return the claims of the instances that claim anything
	 * @throws InvalidRetryPropertyException if a claim is invalid
	 */
	static List<Claim> of(RetryProperties properties) {
		String configsPath = PREFIX + ".configs";
		checkNoClaims(PREFIX + ".defaults", properties.getDefaults());
		properties.getConfigs().forEach((name, config) -> checkNoClaims(configsPath + "." + name, config));
		BaseConfigChain defaults = BaseConfigChain.ofDefaults(PREFIX + ".defaults", properties.getDefaults());
		methods(PREFIX + ".defaults", properties.getDefaults());
		properties.getConfigs().forEach((name, config) -> methods(configsPath + "." + name, config));
		Map<String, String> claimedHosts = new HashMap<>();
		Map<String, String> claimedGroups = new HashMap<>();
		List<Claim> claims = new ArrayList<>();
		properties.getInstances().forEach((name, instance) -> {
			String path = PREFIX + ".instances." + name;
			Set<String> ownMethods = methods(path, instance);
			HttpClaimProperties http = instance.getHttp();
			List<String> hosts = claim(path + ".http.hosts", http.getHosts(), claimedHosts, "host", HttpClaims::checkHost);
			List<String> groups = claim(path + ".http.service-groups", http.getServiceGroups(), claimedGroups,
					"service group", HttpClaims::checkGroup);
			if (hosts.isEmpty() && groups.isEmpty()) {
				return;
			}
			BaseConfigChain chain = BaseConfigChain.of(path, instance, configsPath, properties.getConfigs(), defaults);
			BaseConfigChain.Setting<List<String>> inherited = chain.nearest(p -> p.getHttp().getMethods());
			Set<String> methods = (inherited != null) ? upperCase(inherited.value()) : ownMethods;
			BaseConfigChain.Setting<Boolean> honor = chain.nearest(RetryInstanceProperties::getHonorRetryAfter);
			claims.add(new Claim(name, hosts, groups, methods, honor == null || honor.value(), path));
		});
		return claims;
	}

	private static void checkNoClaims(String path, RetryInstanceProperties properties) {
		HttpClaimProperties http = properties.getHttp();
		for (String key : List.of("hosts", "service-groups")) {
			List<String> values = key.equals("hosts") ? http.getHosts() : http.getServiceGroups();
			if (values != null && !values.isEmpty()) {
				String property = path + ".http." + key;
				throw new InvalidRetryPropertyException(property, values,
						"a host or service group is claimed by one instance, so it is set under retry.instances only",
						"Move '" + property + "' to the instance that retries these calls (retry.instances.<name>.http."
								+ key + ").", null);
			}
		}
	}

	private static Set<String> methods(String path, RetryInstanceProperties properties) {
		List<String> methods = properties.getHttp().getMethods();
		if (methods == null) {
			return Set.of();
		}
		for (int i = 0; i < methods.size(); i++) {
			String method = methods.get(i).trim().toUpperCase(Locale.ROOT);
			if (!METHODS.contains(method)) {
				String property = path + ".http.methods[" + i + "]";
				throw new InvalidRetryPropertyException(property, methods.get(i),
						"'" + methods.get(i) + "' is not an HTTP method; allowed: " + String.join(", ", METHODS),
						"Update '" + property + "' to one of " + String.join(", ", METHODS) + ".", null);
			}
		}
		return upperCase(methods);
	}

	private static Set<String> upperCase(List<String> methods) {
		Set<String> upper = new LinkedHashSet<>();
		methods.forEach(method -> upper.add(method.trim().toUpperCase(Locale.ROOT)));
		return upper;
	}

	/**
	 * Claims each of an instance's hosts or service groups, which no other instance may claim.
	 * @param path the property path of the list
	 * @param values the list as bound
	 * @param claimed the property path that claimed each host or group so far; the list's values are added
	 * @param kind what the values are, as the failure names them
	 * @param check checks a value (its property path, the value as bound) and returns it normalised
	 * @return the normalised values
	 * @throws InvalidRetryPropertyException if a value is invalid, or an element of another list claimed it
	 */
	private static List<String> claim(String path, @Nullable List<String> values, Map<String, String> claimed,
			String kind, BiFunction<String, @Nullable String, String> check) {
		if (values == null) {
			return List.of();
		}
		List<String> checked = new ArrayList<>();
		for (int i = 0; i < values.size(); i++) {
			String property = path + "[" + i + "]";
			String value = check.apply(property, values.get(i));
			String before = claimed.putIfAbsent(value, property);
			if (before != null && !before.startsWith(path + "[")) {
				throw new InvalidRetryPropertyException(property, values.get(i), kind + " '" + value
						+ "' is already claimed by " + before + ", and a " + kind + " is retried by one instance",
						"Remove '" + value + "' from '" + property + "' or from '" + before + "'.", null);
			}
			checked.add(value);
		}
		return checked;
	}

	/**
	 * @param property the property path of the pattern
	 * @param pattern the pattern as bound
	 * @return the pattern in lower case
	 * @throws InvalidRetryPropertyException if it is not a host name or {@code *.suffix}
	 */
	static String checkHost(String property, @Nullable String pattern) {
		String text = (pattern != null) ? pattern.trim().toLowerCase(Locale.ROOT) : "";
		String name = text.startsWith("*.") ? text.substring(2) : text;
		if (!HOST.matcher(name).matches()) {
			throw new InvalidRetryPropertyException(property, pattern, "'" + pattern + "' is not a host: allowed are "
					+ "a host name such as inventory.internal (or an IP address), or *.suffix such as *.inventory.svc, "
					+ "without scheme, port, path or spaces",
					"Update '" + property + "' to the host alone, e.g. inventory.internal or *.inventory.svc.", null);
		}
		return text;
	}

	/**
	 * @param property the property path of the name
	 * @param name the name as bound
	 * @return the name, trimmed
	 * @throws InvalidRetryPropertyException if it is empty or has spaces
	 */
	private static String checkGroup(String property, @Nullable String name) {
		String group = (name != null) ? name.trim() : "";
		if (group.isEmpty() || group.chars().anyMatch(Character::isWhitespace)) {
			throw new InvalidRetryPropertyException(property, name,
					"a service group is named as in @ImportHttpServices(group = ...): not empty, without spaces",
					"Update '" + property + "' to the name of an HTTP service group.", null);
		}
		return group;
	}

}
