package dev.retrykit.spring.boot.http.client;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Which route claims the calls of one client: the route every call of the client runs on (a client of an HTTP service
 * group, or one built for a single route), or else the route that claims the request's host. Immutable.
 * @param routes the routes that claim hosts; {@link HttpRetryRoutes#none()} when {@code route} is set
 * @param route the route of every call, or {@code null} to look up the host
 */
record ClientClaims(HttpRetryRoutes routes, @Nullable HttpRetryRoute route) {

	/** {@return the claims of a client whose calls are claimed by their hosts} */
	static ClientClaims byHost(HttpRetryRoutes routes) {
		return new ClientClaims(Objects.requireNonNull(routes, "routes must not be null"), null);
	}

	/** {@return the claims of a client whose every call runs on one route} */
	static ClientClaims everyCall(HttpRetryRoute route) {
		return new ClientClaims(HttpRetryRoutes.none(), Objects.requireNonNull(route, "route must not be null"));
	}

	/**
	 * {@return the route that claims a call to the host, or {@code null} when none does}
	 * @param host the request's host (may be {@code null})
	 */
	@Nullable HttpRetryRoute claimant(@Nullable String host) {
		return (this.route != null) ? this.route : this.routes.forHost(host);
	}

	@Override
	public String toString() {
		return String.valueOf((this.route != null) ? this.route : this.routes);
	}

}
