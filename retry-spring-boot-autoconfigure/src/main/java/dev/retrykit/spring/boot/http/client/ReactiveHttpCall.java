package dev.retrykit.spring.boot.http.client;

import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.RetryContext;
import dev.retrykit.reactor.RetryOperator;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * One retried call of a {@code WebClient}: each attempt (each hedged copy) is an exchange of its own, through
 * retry-reactor's operator on the route's template, so no thread waits between attempts and a hedging instance
 * races copies. The request's body inserter is run again for each attempt. The response of a failed attempt
 * keeps its body until the next attempt starts, and is released then; the call's last one is handed to the client
 * when the call ends with it, and released when the call ends otherwise or is cancelled. A hedging instance
 * releases each failed copy's response at once. Thread-safe: the held response is swapped atomically.
 */
final class ReactiveHttpCall {

	private final HttpRetryRoute route;

	private final ClientRequest request;

	private final ExchangeFunction next;

	private final boolean hedged;

	/** The failure of the last failed attempt, whose response still has its body; not hedged calls only. */
	private final AtomicReference<@Nullable RetriedStatusException> held = new AtomicReference<>();

	private ReactiveHttpCall(HttpRetryRoute route, ClientRequest request, ExchangeFunction next) {
		this.route = route;
		this.request = request;
		this.next = next;
		this.hedged = route.hedges();
	}

	/** {@return the retried exchange: a call of its own per subscription} */
	static Mono<ClientResponse> exchange(HttpRetryRoute route, ClientRequest request, ExchangeFunction next) {
		return Mono.defer(() -> {
			ReactiveHttpCall call = new ReactiveHttpCall(route, request, next);
			return Mono.defer(call::attempt)
				.transformDeferred(RetryOperator.of(route.template()))
				.onErrorResume(RetriedStatusException.class, call::handOver)
				.doFinally(signal -> call.release(call.held.getAndSet(null)));
		});
	}

	private Mono<ClientResponse> attempt() {
		RetryContext context = RetryContext.current();
		int attempt = (context != null) ? context.getRetryCount() + 1 : 1;
		Mono<Void> released = this.hedged ? Mono.empty() : releaseLater(this.held.getAndSet(null));
		ClientRequest sent = (attempt == 1) ? this.request : ClientRequest.from(this.request)
			.headers(headers -> headers.set(this.route.attemptHeader(), Integer.toString(attempt)))
			.build();
		return released.then(this.next.exchange(sent)).flatMap(this::judge);
	}

	private Mono<ClientResponse> judge(ClientResponse response) {
		if (!this.route.failsAttempt(response.statusCode().value())) {
			return Mono.just(response);
		}
		RetriedStatusException failure = new RetriedStatusException(this.request.method(), this.request.url(),
				response.statusCode(), response.headers().asHttpHeaders(), this.hedged ? null : response);
		if (this.hedged) {
			return response.releaseBody().then(Mono.error(failure));
		}
		release(this.held.getAndSet(failure));
		return Mono.error(failure);
	}

	/** The call ended with a failed attempt's status: its response is the call's, when it still has it. */
	private Mono<ClientResponse> handOver(RetriedStatusException ended) {
		if (this.held.compareAndSet(ended, null) && ended.response() instanceof ClientResponse last) {
			return Mono.just(last);
		}
		return Mono.error(ended);
	}

	private static Mono<Void> releaseLater(@Nullable RetriedStatusException failed) {
		return (failed != null && failed.response() instanceof ClientResponse response) ? response.releaseBody()
				.onErrorResume(ex -> Mono.empty()) : Mono.empty();
	}

	private void release(@Nullable RetriedStatusException failed) {
		releaseLater(failed).subscribe();
	}

}
