package dev.retrykit.spring.boot.http.client;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import dev.retrykit.Deadline;
import org.apache.hc.client5.http.classic.HttpClient;
import org.apache.hc.client5.http.config.Configurable;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.Timeout;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpMethod;

/**
 * Bounds each blocking request sent through Apache HttpClient 5 by the {@link Deadline} current on the thread that
 * sends it: the request's response timeout (the longest wait for the answer, and between its packets) and its wait
 * for a pooled connection become the time left, never more than the client's own read timeout. A request sent
 * under no deadline keeps the client's settings. Install it with
 * {@code HttpComponentsClientHttpRequestFactory.setHttpContextFactory}; the auto-configuration does for the clients
 * built from Boot's builders while {@code retry.http.propagation.enabled} is on. Thread-safe.
 */
public final class DeadlineHttpContextFactory implements BiFunction<HttpMethod, URI, HttpContext> {

	private final Supplier<HttpClient> client;

	private final @Nullable Duration readTimeout;

	/**
	 * @param client the factory's client, whose default request configuration each bounded request starts from
	 * @param readTimeout the client's read timeout ({@code spring.http.clients.read-timeout}), or {@code null}
	 */
	public DeadlineHttpContextFactory(Supplier<HttpClient> client, @Nullable Duration readTimeout) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.readTimeout = readTimeout;
	}

	@Override
	public HttpContext apply(HttpMethod method, URI uri) {
		Deadline deadline = Deadline.current();
		if (deadline == null) {
			// No request configuration of its own: the factory applies its default one.
			return HttpClientContext.create();
		}
		// At least a millisecond: a request whose deadline has passed is not sent (the retrying interceptor checks).
		long millis = Math.max(1, deadline.remainingNanos() / 1_000_000L);
		if (this.readTimeout != null && !this.readTimeout.isZero() && this.readTimeout.toMillis() < millis) {
			millis = this.readTimeout.toMillis();
		}
		RequestConfig base = (this.client.get() instanceof Configurable configurable) ? configurable.getConfig() : null;
		Timeout left = Timeout.ofMilliseconds(millis);
		RequestConfig.Builder config = (base != null) ? RequestConfig.copy(base) : RequestConfig.custom();
		if (base == null || base.getResponseTimeout() == null || base.getResponseTimeout().isDisabled()
				|| base.getResponseTimeout().toMilliseconds() > millis) {
			config.setResponseTimeout(left);
		}
		if (base == null || base.getConnectionRequestTimeout() == null
				|| base.getConnectionRequestTimeout().isDisabled()
				|| base.getConnectionRequestTimeout().toMilliseconds() > millis) {
			config.setConnectionRequestTimeout(left);
		}
		HttpClientContext context = HttpClientContext.create();
		context.setRequestConfig(config.build());
		return context;
	}

	@Override
	public String toString() {
		return "DeadlineHttpContextFactory[readTimeout=" + this.readTimeout + "]";
	}

}
