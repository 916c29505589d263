package dev.retrykit.spring.boot.http.client;

import java.io.IOException;
import java.util.Objects;

import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.RouteInfo;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;
import org.jspecify.annotations.Nullable;

/**
 * Apache HttpClient 5's retry strategy, except for the calls a retrykit instance claims (by host, or by service
 * group: an attempt its instance sends, whatever its host). HttpClient 5 retries by
 * itself (by default an idempotent request's I/O failure, and a 429 or 503, once, after a second): under a
 * retrykit instance that would multiply the attempts and hide a wait from the instance's backoff. Calls to other
 * hosts keep the strategy they had. The auto-configuration installs it in Boot's
 * {@code HttpComponentsClientHttpRequestFactoryBuilder} when an instance claims hosts; a client built by hand
 * sets it with {@code HttpClientBuilder.setRetryStrategy}. Thread-safe.
 */
public final class ClaimedHostsHttpRequestRetryStrategy implements HttpRequestRetryStrategy {

	private final HttpRetryRoutes routes;

	private final HttpRequestRetryStrategy others;

	/**
	 * @param routes the hosts the instances claim
	 * @param others the strategy for the other hosts
	 */
	public ClaimedHostsHttpRequestRetryStrategy(HttpRetryRoutes routes, HttpRequestRetryStrategy others) {
		this.routes = Objects.requireNonNull(routes, "routes must not be null");
		this.others = Objects.requireNonNull(others, "others must not be null");
	}

	/**
	 * {@return HttpClient 5's default strategy, except for the claimed hosts}
	 * @param routes the hosts the instances claim
	 */
	public static ClaimedHostsHttpRequestRetryStrategy of(HttpRetryRoutes routes) {
		return new ClaimedHostsHttpRequestRetryStrategy(routes, DefaultHttpRequestRetryStrategy.INSTANCE);
	}

	@Override
	public boolean retryRequest(HttpRequest request, IOException exception, int execCount, HttpContext context) {
		return !claimed(context) && this.others.retryRequest(request, exception, execCount, context);
	}

	@Override
	public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
		return !claimed(context) && this.others.retryRequest(response, execCount, context);
	}

	@Override
	public TimeValue getRetryInterval(HttpRequest request, IOException exception, int execCount, HttpContext context) {
		return this.others.getRetryInterval(request, exception, execCount, context);
	}

	@Override
	public TimeValue getRetryInterval(HttpResponse response, int execCount, HttpContext context) {
		return this.others.getRetryInterval(response, execCount, context);
	}

	private boolean claimed(HttpContext context) {
		// A service group's call may go to any host: it is claimed when its instance's attempt sends it, on this
		// thread (HttpClient 5's classic API runs the exchange on the caller's thread).
		if (ClaimedAttempts.sending()) {
			return true;
		}
		RouteInfo route = HttpClientContext.castOrCreate(context).getHttpRoute();
		@Nullable String host = (route != null) ? route.getTargetHost().getHostName() : null;
		return this.routes.forHost(host) != null;
	}

}
