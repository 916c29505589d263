package dev.retrykit.spring.boot.http.client;

import java.io.IOException;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.observation.ClientRequestObservationConvention;

/**
 * Retries the calls of a {@code RestClient} or {@code RestTemplate} that a retrykit instance claims. The
 * auto-configuration adds one to every client built from Boot's builders; a client built by hand adds it itself:
 * <pre>{@code
 * RestClient client = RestClient.builder()
 *     .requestInterceptor(interceptor)   // the RetryingClientHttpRequestInterceptor bean
 *     .build();
 * }</pre>
 * Put it first among the interceptors, so that the others run once per attempt.
 *
 * <p>A call no instance claims goes on untouched, after one lookup of its host. A claimed call runs on the
 * instance: a request that may be sent again (see {@link HttpRetryRoute#retries}) is retried on I/O failures and
 * on the statuses of the instance's {@code match.http-status}, honouring {@code Retry-After}; every attempt after
 * the first carries the attempt header; the response of every failed attempt is closed, except the last one,
 * which the client gets as the call's response. A request that may not be sent again is sent once, and an I/O
 * failure of it says why in a suppressed {@link NotRetriedException}. Thread-safe.
 */
public final class RetryingClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

	private final ClientClaims claims;

	private final @Nullable ObservedAttempts observations;

	private RetryingClientHttpRequestInterceptor(ClientClaims claims, @Nullable ObservedAttempts observations) {
		this.claims = claims;
		this.observations = observations;
	}

	/**
	 * This interceptor, recording each attempt as an {@code http.client.requests} observation, the child of the
	 * attempt's {@code retry.attempt}. Add a {@link ClaimedCallsObservationPredicate} to the registry, so that the
	 * client's own observation of the whole call is not recorded as well (Boot adds the auto-configured one).
	 * @param registry the registry
	 * @param convention the convention of the client's observations, or {@code null} for Spring's default
	 * @param name the observation's name with the default convention ({@code http.client.requests})
	 * @return a new interceptor
	 */
	public RetryingClientHttpRequestInterceptor observedBy(ObservationRegistry registry,
			@Nullable ClientRequestObservationConvention convention, String name) {
		return new RetryingClientHttpRequestInterceptor(this.claims, new ObservedAttempts(registry, convention, name));
	}

	/**
	 * {@return an interceptor that retries the calls to the hosts the routes claim}
	 * @param routes the routes
	 */
	public static RetryingClientHttpRequestInterceptor of(HttpRetryRoutes routes) {
		return new RetryingClientHttpRequestInterceptor(ClientClaims.byHost(routes), null);
	}

	/**
	 * {@return an interceptor that retries every call of its client on one route (an HTTP service group's), observed
	 * as this one is}
	 * @param route the route
	 */
	public RetryingClientHttpRequestInterceptor forRoute(HttpRetryRoute route) {
		return new RetryingClientHttpRequestInterceptor(ClientClaims.everyCall(route), this.observations);
	}

	/**
	 * {@return an interceptor that retries every call of its client on one route (an HTTP service group's)}
	 * @param route the route
	 */
	public static RetryingClientHttpRequestInterceptor of(HttpRetryRoute route) {
		return new RetryingClientHttpRequestInterceptor(ClientClaims.everyCall(route), null);
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		HttpRetryRoute claimed = this.claims.claimant(request.getURI().getHost());
		if (claimed == null) {
			return execution.execute(request, body);
		}
		if (!claimed.retries(request.getMethod(), request.getHeaders())) {
			try {
				return execution.execute(request, body);
			}
			catch (IOException ex) {
				throw NotRetriedException.note(ex, claimed.notRetriedReason(request.getMethod()));
			}
		}
		return BlockingHttpCall.execute(claimed, request, body, execution, this.observations);
	}

	@Override
	public String toString() {
		return "RetryingClientHttpRequestInterceptor[" + this.claims + "]";
	}

}
