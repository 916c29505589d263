package dev.retrykit.spring.boot.http.client;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientRequestObservationConvention;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientRequestException;

/**
 * Retries the calls of a {@code WebClient} that a retrykit instance claims. The auto-configuration adds one to
 * every client built from Boot's {@code WebClient.Builder}; a client built by hand adds it itself:
 * <pre>{@code
 * WebClient client = WebClient.builder()
 *     .filter(filter)   // the RetryingExchangeFilterFunction bean
 *     .build();
 * }</pre>
 * Put it first among the filters, so that the others run once per attempt.
 *
 * <p>A call no instance claims goes on untouched, after one lookup of its host. A claimed call runs on the
 * instance through retry-reactor's operator (no thread waits between attempts; a hedging instance races copies):
 * a request that may be sent again (see {@link HttpRetryRoute#retries}) is retried on I/O failures
 * ({@link WebClientRequestException}) and on the statuses of the instance's {@code match.http-status},
 * honouring {@code Retry-After}; every attempt after the first carries the attempt header; the response of every
 * failed attempt is released, except the last one, which the client gets as the call's response. A request that
 * may not be sent again is sent once, and its I/O failure says why in a suppressed {@link NotRetriedException}.
 * A request body is written once, by the first attempt, which keeps a copy of its bytes (up to 256 KiB) for the
 * later attempts and hedged copies to send, so a body from a publisher that can be subscribed once is retried
 * safely; a longer body, or one not written whole, is sent once, and the failure says why in the same way.
 * Thread-safe.
 */
public final class RetryingExchangeFilterFunction implements ExchangeFilterFunction {

	private final ClientClaims claims;

	private final @Nullable ObservedExchanges observations;

	private RetryingExchangeFilterFunction(ClientClaims claims, @Nullable ObservedExchanges observations) {
		this.claims = claims;
		this.observations = observations;
	}

	/**
	 * This filter, recording each attempt as an {@code http.client.requests} observation, the child of the
	 * attempt's {@code retry.attempt}. Add a {@link ClaimedWebClientCallsObservationPredicate} to the registry, so
	 * that the client's own observation of the whole call is not recorded as well (Boot adds the auto-configured one).
	 * @param registry the registry
	 * @param convention the convention of the client's observations, or {@code null} for Spring's default
	 * @param name the observation's name with the default convention ({@code http.client.requests})
	 * @return a new filter
	 */
	public RetryingExchangeFilterFunction observedBy(ObservationRegistry registry,
			@Nullable ClientRequestObservationConvention convention, String name) {
		return new RetryingExchangeFilterFunction(this.claims, new ObservedExchanges(registry, convention, name));
	}

	/**
	 * {@return a filter that retries every call of its client on one route (an HTTP service group's), observed as
	 * this one is}
	 * @param route the route
	 */
	public RetryingExchangeFilterFunction forRoute(HttpRetryRoute route) {
		return new RetryingExchangeFilterFunction(ClientClaims.everyCall(route), this.observations);
	}

	/**
	 * {@return a filter that retries the calls to the hosts the routes claim}
	 * @param routes the routes
	 */
	public static RetryingExchangeFilterFunction of(HttpRetryRoutes routes) {
		return new RetryingExchangeFilterFunction(ClientClaims.byHost(routes), null);
	}

	/**
	 * {@return a filter that retries every call of its client on one route (an HTTP service group's)}
	 * @param route the route
	 */
	public static RetryingExchangeFilterFunction of(HttpRetryRoute route) {
		return new RetryingExchangeFilterFunction(ClientClaims.everyCall(route), null);
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		HttpRetryRoute claimed = this.claims.claimant(request.url().getHost());
		if (claimed == null) {
			return next.exchange(request);
		}
		if (!claimed.retries(request.method(), request.headers())) {
			return next.exchange(request)
				.onErrorMap(WebClientRequestException.class,
						ex -> NotRetriedException.note(ex, claimed.notRetriedReason(request.method())));
		}
		return ReactiveHttpCall.exchange(claimed, request, next, this.observations);
	}

	@Override
	public String toString() {
		return "RetryingExchangeFilterFunction[" + this.claims + "]";
	}

}
