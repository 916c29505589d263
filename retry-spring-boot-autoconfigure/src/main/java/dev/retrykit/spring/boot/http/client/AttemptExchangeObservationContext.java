package dev.retrykit.spring.boot.http.client;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientRequestObservationContext;

/**
 * The context of the {@code http.client.requests} observation of one attempt of a retried {@code WebClient} call:
 * Spring's own context, told apart so that {@link ClaimedWebClientCallsObservationPredicate} keeps it while it
 * drops the client's observation of the whole call.
 */
public final class AttemptExchangeObservationContext extends ClientRequestObservationContext {

	AttemptExchangeObservationContext(ClientRequest.Builder request) {
		super(request);
	}

}
