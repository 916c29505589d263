package dev.retrykit.spring.boot.http.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Which instance claims a call: by the request's host ({@code http.hosts}: exact names, or {@code *.suffix}) or by
 * the HTTP service group of the client ({@code http.service-groups}). A call no route claims costs one hash lookup
 * of its host, plus a walk of the (short) list of suffixes when there are any. Immutable and thread-safe; built
 * once with {@link #builder()}.
 */
public final class HttpRetryRoutes {

	private static final HttpRetryRoutes NONE = new HttpRetryRoutes(Map.of(), new String[0], new HttpRetryRoute[0],
			Map.of());

	private final Map<String, HttpRetryRoute> hosts;

	/** Each {@code *.suffix} as {@code .suffix}, longest first, so that the most specific one wins. */
	private final String[] suffixes;

	private final HttpRetryRoute[] suffixRoutes;

	private final Map<String, HttpRetryRoute> groups;

	private HttpRetryRoutes(Map<String, HttpRetryRoute> hosts, String[] suffixes, HttpRetryRoute[] suffixRoutes,
			Map<String, HttpRetryRoute> groups) {
		this.hosts = hosts;
		this.suffixes = suffixes;
		this.suffixRoutes = suffixRoutes;
		this.groups = groups;
	}

	/** {@return routes that claim nothing} */
	public static HttpRetryRoutes none() {
		return NONE;
	}

	/** {@return a builder of routes} */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * {@return the route of the instance that claims the host, or {@code null} when none does}
	 * @param host a request's host, as {@link java.net.URI#getHost()} gives it (may be {@code null})
	 */
	public @Nullable HttpRetryRoute forHost(@Nullable String host) {
		if (host == null) {
			return null;
		}
		HttpRetryRoute route = this.hosts.get(host);
		if (route != null || this.suffixes.length == 0) {
			return route;
		}
		return forSuffix(host);
	}

	private @Nullable HttpRetryRoute forSuffix(String host) {
		String name = host;
		// URI hosts keep the case they were written in; the map holds lower case.
		if (!name.equals(name.toLowerCase(Locale.ROOT))) {
			name = name.toLowerCase(Locale.ROOT);
			HttpRetryRoute exact = this.hosts.get(name);
			if (exact != null) {
				return exact;
			}
		}
		for (int i = 0; i < this.suffixes.length; i++) {
			if (name.endsWith(this.suffixes[i])) {
				return this.suffixRoutes[i];
			}
		}
		return null;
	}

	/**
	 * {@return the route of the instance that claims an HTTP service group, or {@code null} when none does}
	 * @param group the group's name
	 */
	public @Nullable HttpRetryRoute forGroup(String group) {
		return this.groups.get(group);
	}

	/** {@return whether no route claims anything} */
	public boolean isEmpty() {
		return this.hosts.isEmpty() && this.suffixes.length == 0 && this.groups.isEmpty();
	}

	/** {@return every distinct route} */
	public List<HttpRetryRoute> routes() {
		List<HttpRetryRoute> all = new ArrayList<>();
		this.hosts.values().forEach(route -> addOnce(all, route));
		List.of(this.suffixRoutes).forEach(route -> addOnce(all, route));
		this.groups.values().forEach(route -> addOnce(all, route));
		return all;
	}

	/** {@return the routes of the instances that claim hosts (not only groups)} */
	public List<HttpRetryRoute> hostRoutes() {
		List<HttpRetryRoute> all = new ArrayList<>();
		this.hosts.values().forEach(route -> addOnce(all, route));
		List.of(this.suffixRoutes).forEach(route -> addOnce(all, route));
		return all;
	}

	private static void addOnce(List<HttpRetryRoute> all, HttpRetryRoute route) {
		if (!all.contains(route)) {
			all.add(route);
		}
	}

	@Override
	public String toString() {
		return "HttpRetryRoutes[hosts=" + this.hosts.keySet() + ", suffixes=" + List.of(this.suffixes) + ", groups="
				+ this.groups.keySet() + "]";
	}

	/** Collects the claims; the patterns must already be valid (the auto-configuration checks them). Not thread-safe. */
	public static final class Builder {

		private final Map<String, HttpRetryRoute> hosts = new HashMap<>();

		private final Map<String, HttpRetryRoute> suffixes = new HashMap<>();

		private final Map<String, HttpRetryRoute> groups = new HashMap<>();

		private Builder() {
		}

		/**
		 * Claims a host for a route.
		 * @param pattern an exact host name, or {@code *.suffix}
		 * @param route the route
		 * @return this builder
		 * @throws IllegalArgumentException if another route claims the same pattern
		 */
		public Builder host(String pattern, HttpRetryRoute route) {
			String name = pattern.trim().toLowerCase(Locale.ROOT);
			if (name.startsWith("*.")) {
				claim(this.suffixes, name.substring(1), route);
			}
			else {
				claim(this.hosts, name, route);
			}
			return this;
		}

		/**
		 * Claims an HTTP service group for a route.
		 * @param group the group's name
		 * @param route the route
		 * @return this builder
		 * @throws IllegalArgumentException if another route claims the same group
		 */
		public Builder group(String group, HttpRetryRoute route) {
			claim(this.groups, group.trim(), route);
			return this;
		}

		private static void claim(Map<String, HttpRetryRoute> claims, String key, HttpRetryRoute route) {
			HttpRetryRoute before = claims.putIfAbsent(key, Objects.requireNonNull(route, "route must not be null"));
			if (before != null && before != route) {
				throw new IllegalArgumentException("Invalid claim (" + key + "): claimed by both '" + before.instance()
						+ "' and '" + route.instance() + "'");
			}
		}

		/** {@return the routes} */
		public HttpRetryRoutes build() {
			List<Map.Entry<String, HttpRetryRoute>> bySuffix = new ArrayList<>(this.suffixes.entrySet());
			bySuffix.sort((a, b) -> Integer.compare(b.getKey().length(), a.getKey().length()));
			return new HttpRetryRoutes(Map.copyOf(this.hosts),
					bySuffix.stream().map(Map.Entry::getKey).toArray(String[]::new),
					bySuffix.stream().map(Map.Entry::getValue).toArray(HttpRetryRoute[]::new), Map.copyOf(this.groups));
		}

	}

}
