package dev.retrykit.spring.boot.http.client;

import dev.retrykit.Deadline;
import dev.retrykit.DownstreamExhaustedException;
import dev.retrykit.context.RetryContext;
import dev.retrykit.reactor.RetryOperator;
import dev.retrykit.spring.boot.http.HopHeaders;
import dev.retrykit.spring.boot.http.server.ExhaustionMarker;
import dev.retrykit.spring.boot.http.server.ExhaustionRecordingListener;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientRequestException;

/**
 * One retried call of a {@code WebClient}: each attempt (each hedged copy) is an exchange of its own, through
 * retry-reactor's operator on the route's template, so no thread waits between attempts and a hedging instance
 * races copies. A request with a body sends the very same bytes on every attempt: the first attempt to write it keeps
 * a copy (see {@link ReplayableBody}, up to {@value ReplayableBody#MAX_REPLAY} bytes); a body that could not be kept
 * whole is sent once, and the call's failure says why in a suppressed {@link NotRetriedException}. A failed
 * attempt's response is read (its first {@value RetriedStatusException#MAX_BODY} bytes) and released at once, so its
 * pooled connection is back in the pool before the backoff; when the call ends with it, the client gets a copy made
 * of what was read. Stateless: each attempt stands alone, so copies may run side by side.
 *
 * <p>Across hops (when the route has {@link HopHeaders}): the call's {@link Deadline} is the earliest of the one in
 * the subscriber's Reactor {@code Context} (key {@code Deadline.class}), the one current on the subscribing thread
 * and the one current on the thread of the attempt; an attempt sends the whole milliseconds left in the deadline
 * header and is not sent once less than one is left ({@link PastDeadlineException}, as the cause of a
 * {@code WebClientRequestException}); the engine cancels an attempt still in flight at the deadline (its attempt
 * timeout shrinks to the time left), which closes its connection; a response with an error
 * status that carries the exhaustion header fails the attempt with a {@link DownstreamExhaustedException}, never
 * retried, and the client gets that response. The request's {@link ExhaustionMarker} in the {@code Context} (a
 * WebFlux request's) is handed to the call, so that a call that gives up marks the request's response.
 */
final class ReactiveHttpCall {

	private ReactiveHttpCall() {
	}

	/** {@return the retried exchange: a call of its own per subscription} */
	static Mono<ClientResponse> exchange(HttpRetryRoute route, ClientRequest request, ExchangeFunction next,
			@Nullable ObservedExchanges observations) {
		Mono<ClientResponse> call;
		if (route.hops() != null) {
			call = Mono.deferContextual(reactor -> acrossHops(route, request, next, observations, reactor));
		}
		else if (request.body() == BodyInserters.empty()) {
			call = Mono.deferContextual(view -> attempt(route, request, next, observations, null, null, view))
				.transformDeferred(RetryOperator.of(route.template()));
		}
		else {
			call = Mono.defer(() -> {
				ReplayableBody body = ReplayableBody.of(request, route.instance());
				return Mono.deferContextual(view -> attempt(route, request, next, observations, null, body, view))
					.transformDeferred(RetryOperator.of(route.template()));
			});
		}
		return call.onErrorResume(error -> {
			Throwable ended = (error instanceof BodyNotReplayedException carried && carried.getCause() != null)
					? carried.getCause() : error;
			ClientResponse answer = answer(ended);
			return (answer != null) ? Mono.just(answer) : Mono.error(ended);
		});
	}

	private static Mono<ClientResponse> acrossHops(HttpRetryRoute route, ClientRequest request, ExchangeFunction next,
			@Nullable ObservedExchanges observations, ContextView reactor) {
		Deadline deadline = Deadline.earliest(reactor.getOrDefault(Deadline.class, null), Deadline.current());
		ExhaustionMarker marker = reactor.getOrDefault(ExhaustionMarker.class, null);
		RetryOperator<ClientResponse> operator = RetryOperator.of(route.template());
		if (marker != null) {
			operator = operator.describedBy(context -> context.setAttribute(ExhaustionRecordingListener.ATTRIBUTE, marker));
		}
		ReplayableBody body = ReplayableBody.of(request, route.instance());
		return Mono.deferContextual(view -> attempt(route, request, next, observations, deadline, body, view))
			.transformDeferred(operator);
	}

	/** {@return the failed attempt's response the call ended with, which the client gets, or {@code null}} */
	private static @Nullable ClientResponse answer(Throwable ended) {
		Throwable failure = (ended instanceof DownstreamExhaustedException exhausted) ? exhausted.getCause() : ended;
		return (failure instanceof RetriedStatusException status && status.response() instanceof ClientResponse last)
				? last : null;
	}

	private static Mono<ClientResponse> attempt(HttpRetryRoute route, ClientRequest request, ExchangeFunction next,
			@Nullable ObservedExchanges observations, @Nullable Deadline callDeadline, @Nullable ReplayableBody body,
			ContextView subscribed) {
		// The attempt's own context, which retry-reactor hands every attempt's subscription.
		RetryContext context = subscribed.getOrDefault(RetryContext.class, null);
		int attempt = (context != null) ? context.getRetryCount() + 1 : 1;
		HopHeaders hops = route.hops();
		Deadline deadline = (hops != null) ? Deadline.earliest(callDeadline, Deadline.current()) : null;
		long millisLeft;
		try {
			millisLeft = PastDeadlineException.millisLeft(deadline, request.method().name(), request.url());
		}
		catch (PastDeadlineException ex) {
			return Mono.error(new WebClientRequestException(ex, request.method(), request.url(), request.headers()));
		}
		if (body != null && body.lost()) {
			// Nothing whole to send: an earlier attempt was cancelled while it wrote the body, or the body is too long
			// to keep. A hedged copy waits for the copy that writes it, which may still win; then the call ends.
			WebClientRequestException unsent = new WebClientRequestException(
					new IllegalStateException("not sent again: " + body.notReplayedReason()), request.method(),
					request.url(), request.headers());
			return body.afterWriter().then(Mono.error(() -> notReplayed(unsent, body)));
		}
		ReplayableBody.Sending sending = (body != null) ? body.attempt() : null;
		ClientRequest.Builder sent = null;
		if (attempt > 1 || millisLeft >= 0 || body != null) {
			sent = ClientRequest.from(request).headers(headers -> {
				if (attempt > 1) {
					headers.set(route.attemptHeader(), Integer.toString(attempt));
				}
				if (hops != null && millisLeft >= 0) {
					headers.set(hops.deadlineHeader(), Long.toString(millisLeft));
				}
			});
			if (sending != null) {
				sent.body(sending.inserter());
			}
		}
		Mono<ClientResponse> exchanged = (observations != null)
				? observations.exchange((sent != null) ? sent : ClientRequest.from(request), next,
						response -> judge(route, request, response))
				: next.exchange((sent != null) ? sent.build() : request).flatMap(response -> judge(route, request, response));
		if (body == null || sending == null) {
			return exchanged;
		}
		return exchanged.onErrorResume(failure -> unlessReplayable(failure, body, sending))
			.doFinally(signal -> sending.ended());
	}

	/**
	 * {@return the failure of an attempt, which ends the call when its body cannot be sent again: no further attempt
	 * or copy starts, and the failure says why in a suppressed {@link NotRetriedException}; an attempt that did not
	 * write the body (a hedged copy) fails only once the one that wrote it has ended, which may still win}
	 */
	private static Mono<ClientResponse> unlessReplayable(Throwable failure, ReplayableBody body,
			ReplayableBody.Sending sending) {
		if (body.replayable()) {
			return Mono.error(failure);
		}
		if (sending.writes()) {
			return Mono.error(notReplayed(failure, body));
		}
		return body.afterWriter()
			.then(Mono.defer(() -> Mono.error(body.replayable() ? failure : notReplayed(failure, body))));
	}

	/** {@return the failure, with the reason its body was not sent again; carried so that it is not retried} */
	private static Throwable notReplayed(Throwable failure, ReplayableBody body) {
		if (failure instanceof DownstreamExhaustedException exhausted) {
			// Never retried anyway; the note goes on the failure the client sees.
			Throwable cause = exhausted.getCause();
			NotRetriedException.note((cause != null) ? cause : exhausted, body.notReplayedReason());
			return failure;
		}
		return new BodyNotReplayedException(NotRetriedException.note(failure, body.notReplayedReason()));
	}

	private static Mono<ClientResponse> judge(HttpRetryRoute route, ClientRequest request, ClientResponse response) {
		int status = response.statusCode().value();
		String exhausted = route.exhaustedDownstream(status, response.headers().asHttpHeaders());
		if (exhausted == null && !route.failsAttempt(status)) {
			return Mono.just(response);
		}
		return DataBufferUtils.join(response.body(BodyExtractors.toDataBuffers()), RetriedStatusException.MAX_BODY)
			.map(ReactiveHttpCall::bytes)
			// Longer than the limit, or unreadable: the attempt fails all the same, with no body kept.
			.onErrorResume(ex -> response.releaseBody().thenReturn(new byte[0]))
			.defaultIfEmpty(new byte[0])
			.flatMap(body -> {
				RetriedStatusException failure = new RetriedStatusException(request.method(), request.url(),
						response.statusCode(), response.headers().asHttpHeaders(), body, copy(response, body));
				return Mono.error((exhausted != null) ? new DownstreamExhaustedException(exhausted, failure) : failure);
			});
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
