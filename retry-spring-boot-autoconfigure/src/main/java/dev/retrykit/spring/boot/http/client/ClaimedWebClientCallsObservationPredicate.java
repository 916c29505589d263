package dev.retrykit.spring.boot.http.client;

import java.util.Objects;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;
import org.jspecify.annotations.Nullable;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientRequestObservationContext;

/**
 * Drops a {@code WebClient}'s {@code http.client.requests} observation of a whole call that an instance claims by
 * host, or through its HTTP service group (the request carries {@link HttpRetryRoute#GROUP_CLAIM_ATTRIBUTE}): each
 * attempt of it is observed on its own, as the child of its {@code retry.attempt}
 * ({@link AttemptExchangeObservationContext}). Other observations pass. Thread-safe.
 */
public final class ClaimedWebClientCallsObservationPredicate implements ObservationPredicate {

	private final Supplier<HttpRetryRoutes> routeSource;

	private volatile @Nullable HttpRetryRoutes routes;

	/**
	 * @param routes supplies the hosts the instances claim; asked when the first client observation is seen
	 */
	public ClaimedWebClientCallsObservationPredicate(Supplier<HttpRetryRoutes> routes) {
		this.routeSource = Objects.requireNonNull(routes, "routes must not be null");
	}

	@Override
	public boolean test(String name, Observation.Context context) {
		if (context instanceof ClientRequestObservationContext client && !(context instanceof AttemptExchangeObservationContext)) {
			ClientRequest.Builder request = client.getCarrier();
			// The request is built at the observation's start; its URL is set on the builder by then.
			if (request == null) {
				return true;
			}
			ClientRequest built = request.build();
			return built.attribute(HttpRetryRoute.GROUP_CLAIM_ATTRIBUTE).isEmpty()
					&& routes().forHost(built.url().getHost()) == null;
		}
		return true;
	}

	private HttpRetryRoutes routes() {
		HttpRetryRoutes known = this.routes;
		if (known == null) {
			known = Objects.requireNonNull(this.routeSource.get(), "the route supplier returned null");
			this.routes = known;
		}
		return known;
	}

}
