package dev.retrykit.spring.boot.http.client;

import java.util.function.Function;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientRequestObservationConvention;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.DefaultClientRequestObservationConvention;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * Records each attempt of a retried {@code WebClient} call as an {@code http.client.requests} observation of its
 * own, the child of the attempt's {@code retry.attempt} (in scope on the thread that subscribes the attempt). The
 * attempt's trace context is written into the request it sends. Thread-safe.
 */
final class ObservedExchanges {

	/** WebClient's attribute of the URI template, which the convention's {@code uri} key reads. */
	private static final String URI_TEMPLATE = "org.springframework.web.reactive.function.client.WebClient.uriTemplate";

	private final ObservationRegistry registry;

	private final ClientRequestObservationConvention convention;

	ObservedExchanges(ObservationRegistry registry, @Nullable ClientRequestObservationConvention convention,
			String name) {
		this.registry = registry;
		this.convention = (convention != null) ? convention : new DefaultClientRequestObservationConvention(name);
	}

	/**
	 * @param sent the builder of the attempt's request
	 * @param next the rest of the chain
	 * @param judge decides on the attempt's response
	 * @return the attempt's exchange, observed
	 */
	Mono<ClientResponse> exchange(ClientRequest.Builder sent, ExchangeFunction next,
			Function<ClientResponse, Mono<ClientResponse>> judge) {
		if (this.registry.isNoop()) {
			return next.exchange(sent.build()).flatMap(judge);
		}
		AttemptExchangeObservationContext context = new AttemptExchangeObservationContext(sent);
		Observation observation = org.springframework.web.reactive.function.client.ClientHttpObservationDocumentation.HTTP_REACTIVE_CLIENT_EXCHANGES
			.observation(this.convention, this.convention, () -> context, this.registry)
			.parentObservation(this.registry.getCurrentObservation())
			.start();
		ClientRequest request = sent.build();
		context.setUriTemplate((String) request.attribute(URI_TEMPLATE).orElse(null));
		context.setRequest(request);
		return next.exchange(request)
			.doOnNext(context::setResponse)
			.doOnError(observation::error)
			.doFinally(signal -> observation.stop())
			.contextWrite(reactor -> reactor.put(ObservationThreadLocalAccessor.KEY, observation))
			.flatMap(judge);
	}

}
