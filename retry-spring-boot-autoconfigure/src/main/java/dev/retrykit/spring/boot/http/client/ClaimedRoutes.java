package dev.retrykit.spring.boot.http.client;

import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The routes an observation predicate drops the client's observations of, asked of their supplier when the
 * first client observation is seen: the routes need the retry registry, whose instances are observed through the
 * observation registry the predicate is part of. Thread-safe; the supplier may be asked more than once by threads
 * that race on the first observation.
 */
final class ClaimedRoutes {

	private final Supplier<HttpRetryRoutes> source;

	private volatile @Nullable HttpRetryRoutes routes;

	/**
	 * @param routes supplies the hosts the instances claim
	 */
	ClaimedRoutes(Supplier<HttpRetryRoutes> routes) {
		this.source = Objects.requireNonNull(routes, "routes must not be null");
	}

	/**
	 * {@return whether an instance claims a request: through its HTTP service group, or by its host}
	 * @param groupClaimed whether the request carries {@link HttpRetryRoute#GROUP_CLAIM_ATTRIBUTE}
	 * @param host the request's host
	 */
	boolean claims(boolean groupClaimed, @Nullable String host) {
		return groupClaimed || routes().forHost(host) != null;
	}

	private HttpRetryRoutes routes() {
		HttpRetryRoutes known = this.routes;
		if (known == null) {
			known = Objects.requireNonNull(this.source.get(), "the route supplier returned null");
			this.routes = known;
		}
		return known;
	}

}
