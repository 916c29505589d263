package dev.retrykit.spring.boot.http.client;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;

import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.observation.ClientRequestObservationContext;

/**
 * Drops a blocking client's {@code http.client.requests} observation of a whole call that an instance claims by
 * host, or through its HTTP service group (the request carries {@link HttpRetryRoute#GROUP_CLAIM_ATTRIBUTE}): each
 * attempt of it is observed on its own, as the child of its {@code retry.attempt}
 * ({@link AttemptRequestObservationContext}), so one trace shows the call, its attempts and each attempt's request
 * nested, and the {@code http.client.requests} timer counts each request sent. Other observations pass. The
 * auto-configuration declares it as a bean, which Boot adds to the observation registry. Thread-safe.
 */
public final class ClaimedCallsObservationPredicate implements ObservationPredicate {

	private final ClaimedRoutes routes;

	/**
	 * @param routes the hosts the instances claim
	 */
	public ClaimedCallsObservationPredicate(HttpRetryRoutes routes) {
		this(() -> routes);
	}

	/**
	 * A predicate that asks for the routes when it first sees a client's observation: the routes need the retry
	 * registry, whose instances are observed through the observation registry this predicate is part of.
	 * @param routes supplies the hosts the instances claim
	 */
	public ClaimedCallsObservationPredicate(Supplier<HttpRetryRoutes> routes) {
		this.routes = new ClaimedRoutes(routes);
	}

	@Override
	public boolean test(String name, Observation.Context context) {
		if (context instanceof ClientRequestObservationContext client && !(context instanceof AttemptRequestObservationContext)) {
			ClientHttpRequest request = client.getCarrier();
			return request == null || !this.routes.claims(
					request.getAttributes().containsKey(HttpRetryRoute.GROUP_CLAIM_ATTRIBUTE), request.getURI().getHost());
		}
		return true;
	}

}
