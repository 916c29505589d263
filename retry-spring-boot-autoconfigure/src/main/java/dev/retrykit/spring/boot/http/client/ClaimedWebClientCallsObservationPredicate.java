package dev.retrykit.spring.boot.http.client;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientRequestObservationContext;

/**
 * Drops a {@code WebClient}'s {@code http.client.requests} observation of a whole call that an instance claims by
 * host, or through its HTTP service group (the request carries {@link HttpRetryRoute#GROUP_CLAIM_ATTRIBUTE}): each
 * attempt of it is observed on its own, as the child of its {@code retry.attempt}
 * ({@link AttemptExchangeObservationContext}). Other observations pass. Thread-safe.
 */
public final class ClaimedWebClientCallsObservationPredicate implements ObservationPredicate {

	private final ClaimedRoutes routes;

	/**
	 * @param routes supplies the hosts the instances claim; asked when the first client observation is seen
	 */
	public ClaimedWebClientCallsObservationPredicate(Supplier<HttpRetryRoutes> routes) {
		this.routes = new ClaimedRoutes(routes);
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
			return !this.routes.claims(built.attribute(HttpRetryRoute.GROUP_CLAIM_ATTRIBUTE).isPresent(),
					built.url().getHost());
		}
		return true;
	}

}
