package dev.retrykit.spring.boot.http.client;

import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import dev.retrykit.reactor.RetryOperator;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * One retried call of a {@code WebClient}: each attempt (each hedged copy) is an exchange of its own, through
 * retry-reactor's operator on the route's template, so no thread waits between attempts and a hedging instance
 * races copies. The request's body inserter is run again for each attempt. A failed attempt's response is read
 * (its first {@value RetriedStatusException#MAX_BODY} bytes) and released at once, so its pooled connection is
 * back in the pool before the backoff; when the call ends with it, the client gets a copy made of what was read.
 * Stateless: each attempt stands alone, so copies may run side by side.
 */
final class ReactiveHttpCall {

	private ReactiveHttpCall() {
	}

	/** {@return the retried exchange: a call of its own per subscription} */
	static Mono<ClientResponse> exchange(HttpRetryRoute route, ClientRequest request, ExchangeFunction next,
			@Nullable ObservedExchanges observations) {
		return Mono.defer(() -> attempt(route, request, next, observations))
			.transformDeferred(RetryOperator.of(route.template()))
			.onErrorResume(RetriedStatusException.class, ended -> (ended.response() instanceof ClientResponse last)
					? Mono.just(last) : Mono.error(ended));
	}

	private static Mono<ClientResponse> attempt(HttpRetryRoute route, ClientRequest request, ExchangeFunction next,
			@Nullable ObservedExchanges observations) {
		RetryContext context = RetryTemplate.currentContext();
		int attempt = (context != null) ? context.getRetryCount() + 1 : 1;
		if (observations != null) {
			ClientRequest.Builder sent = ClientRequest.from(request);
			if (attempt > 1) {
				sent.headers(headers -> headers.set(route.attemptHeader(), Integer.toString(attempt)));
			}
			return observations.exchange(sent, next, response -> judge(route, request, response));
		}
		ClientRequest sent = (attempt == 1) ? request : ClientRequest.from(request)
			.headers(headers -> headers.set(route.attemptHeader(), Integer.toString(attempt)))
			.build();
		return next.exchange(sent).flatMap(response -> judge(route, request, response));
	}

	private static Mono<ClientResponse> judge(HttpRetryRoute route, ClientRequest request, ClientResponse response) {
		if (!route.failsAttempt(response.statusCode().value())) {
			return Mono.just(response);
		}
		return DataBufferUtils.join(response.body(BodyExtractors.toDataBuffers()), RetriedStatusException.MAX_BODY)
			.map(ReactiveHttpCall::bytes)
			// Longer than the limit, or unreadable: the attempt fails all the same, with no body kept.
			.onErrorResume(ex -> response.releaseBody().thenReturn(new byte[0]))
			.defaultIfEmpty(new byte[0])
			.flatMap(body -> Mono.error(new RetriedStatusException(request.method(), request.url(),
					response.statusCode(), response.headers().asHttpHeaders(), body, copy(response, body))));
	}

	private static byte[] bytes(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	/** A response with the failed one's status and headers, and the body read from it; it holds no connection. */
	private static ClientResponse copy(ClientResponse response, byte[] body) {
		return response.mutate()
			.body(Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body))))
			.build();
	}

}
