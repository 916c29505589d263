package dev.retrykit.spring.boot.http.server;

import java.util.Objects;

import dev.retrykit.Deadline;
import dev.retrykit.spring.boot.http.HopHeaders;
import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.core.Ordered;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Retry at one layer, for WebFlux: runs each request under the deadline its caller sent
 * ({@code X-Request-Timeout: <ms>}, see {@link HopHeaders#deadline}) with a fresh {@link ExhaustionMarker}, and
 * marks its response with {@code X-Retry-Exhausted: <instance>} when, as it is committed, it is an error (status
 * 400 or above) and a retrykit call made during the request gave up (see {@link ExhaustionRecordingListener}).
 * Marking at commit ({@code beforeCommit}) sees the response as the exception handlers left it, Boot's error
 * handler included.
 *
 * <p>Deadline and marker reach the request's calls through the Reactor {@code Context} of the chain (keys
 * {@code Deadline.class} and {@code ExhaustionMarker.class}, read by retry-reactor, the WebClient filter and the
 * {@code @Retryable} reactive and suspend methods), and through the thread while the chain is subscribed, where a
 * handler that does not wait for the request's body runs. Thread-safe.
 */
public final class RetryHopsWebFilter implements WebFilter, Ordered {

	/** Early among the filters (right after the observation filter), so that the whole chain runs under the deadline. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 2;

	private final HopHeaders headers;

	/**
	 * @param headers the names of the headers, and the clock of the deadlines
	 */
	public RetryHopsWebFilter(HopHeaders headers) {
		this.headers = Objects.requireNonNull(headers, "headers must not be null");
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ExhaustionMarker marker = new ExhaustionMarker();
		Deadline deadline = this.headers.deadline(
				exchange.getRequest().getHeaders().getFirst(this.headers.deadlineHeader()));
		ServerHttpResponse response = exchange.getResponse();
		response.beforeCommit(() -> Mono.fromRunnable(() -> mark(response, marker)));
		return new ScopedChain(chain.filter(exchange), marker, deadline)
			.contextWrite(context -> withHop(context, marker, deadline));
	}

	private void mark(ServerHttpResponse response, ExhaustionMarker marker) {
		String instance = marker.exhaustedInstance();
		HttpStatusCode status = response.getStatusCode();
		if (instance != null && status != null && status.value() >= 400) {
			response.getHeaders().set(this.headers.exhaustedHeader(), instance);
		}
	}

	private static Context withHop(Context context, ExhaustionMarker marker, @Nullable Deadline deadline) {
		Context withMarker = context.put(ExhaustionMarker.class, marker);
		if (deadline == null) {
			return withMarker;
		}
		Deadline outer = context.getOrDefault(Deadline.class, null);
		return withMarker.put(Deadline.class, Objects.requireNonNull(Deadline.earliest(outer, deadline)));
	}

	/** {@return {@link #ORDER}} */
	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public String toString() {
		return "RetryHopsWebFilter[" + this.headers + "]";
	}

	/**
	 * The rest of the chain, subscribed with the request's deadline and marker current on the subscribing thread:
	 * a handler invoked during that subscription (one that does not wait for the body) finds them there.
	 */
	private static final class ScopedChain extends Mono<Void> {

		private final Mono<Void> chain;

		private final ExhaustionMarker marker;

		private final @Nullable Deadline deadline;

		ScopedChain(Mono<Void> chain, ExhaustionMarker marker, @Nullable Deadline deadline) {
			this.chain = chain;
			this.marker = marker;
			this.deadline = deadline;
		}

		@Override
		public void subscribe(CoreSubscriber<? super Void> actual) {
			Deadline.Scope deadlineScope = (this.deadline != null) ? this.deadline.enter() : null;
			try (ExhaustionMarker.Scope markerScope = this.marker.enter()) {
				this.chain.subscribe(actual);
			}
			finally {
				if (deadlineScope != null) {
					deadlineScope.close();
				}
			}
		}

	}

}
