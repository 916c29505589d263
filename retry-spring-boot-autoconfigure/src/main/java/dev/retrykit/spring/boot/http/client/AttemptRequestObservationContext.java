package dev.retrykit.spring.boot.http.client;

import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.observation.ClientRequestObservationContext;

/**
 * The context of the {@code http.client.requests} observation of one attempt of a retried blocking call: Spring's
 * own context, told apart so that {@link ClaimedCallsObservationPredicate} keeps it while it drops the client's
 * observation of the whole call.
 */
public final class AttemptRequestObservationContext extends ClientRequestObservationContext {

	AttemptRequestObservationContext(ClientHttpRequest request) {
		super(request);
	}

}
