package dev.retrykit.spring.boot.http.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.Deadline;
import dev.retrykit.VirtualTime;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpServerAutoConfiguration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code WebFilter} in front of real WebFlux handlers on Reactor Netty, on 127.0.0.1: an error response is marked
 * when a {@code @Retryable} {@code Mono} of the request gave up, whether a handler, an exception handler or the
 * server turned the failure into the response, and only then; a request runs under its {@code X-Request-Timeout},
 * in the Reactor Context and on the thread the handler runs on.
 */
class RetryHopsWebFilterTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RetryAutoConfiguration.class,
				RetryHttpServerAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(ReactiveLeaf.class)
		.withPropertyValues("retry.instances.leaf.max-attempts=2", "retry.instances.leaf.backoff.type=none");

	@Test
	void anErrorAnswerAfterACallThatGaveUpIsMarked() {
		serve(server -> {
			HttpResponse<String> response = get(server, "/exhausted-503");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
		});
	}

	@Test
	void aCallSubscribedOnAnotherThreadFindsTheMarkerInTheReactorContext() {
		serve(server -> {
			HttpResponse<String> response = get(server, "/exhausted-elsewhere");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
		});
	}

	@Test
	void aFailureTurnedIntoTheResponseByTheServerIsMarked() {
		serve(server -> {
			HttpResponse<String> response = get(server, "/exhausted");
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
		});
	}

	@Test
	void aFailureTurnedIntoTheResponseByAnExceptionHandlerIsMarked() {
		serve(server -> {
			HttpResponse<String> response = get(server, "/exhausted-handled");
			assertThat(response.statusCode()).isEqualTo(502);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
		});
	}

	@Test
	void aSuccessIsNeverMarked() {
		serve(server -> {
			HttpResponse<String> response = get(server, "/exhausted-200");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
		});
	}

	@Test
	void anErrorAfterACallThatSucceededOnRetryIsNotMarked() {
		serve(server -> {
			HttpResponse<String> response = get(server, "/recovered-503");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.body()).isEqualTo("recovered");
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
		});
	}

	@Test
	void aFailureTheInstanceDoesNotRetryIsNotMarked() {
		serve(server -> {
			HttpResponse<String> response = get(server, "/not-retryable");
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
		});
	}

	@Test
	void aRequestRunsUnderTheDeadlineItsCallerSentInTheContextAndOnTheHandlersThread() {
		serve(server -> {
			assertThat(get(server, "/deadline", "X-Request-Timeout", "1500").body()).isEqualTo("1500");
			assertThat(get(server, "/deadline-thread", "X-Request-Timeout", "1500").body()).isEqualTo("1500");
			assertThat(get(server, "/deadline").body()).isEqualTo("none");
			assertThat(get(server, "/deadline-thread").body()).isEqualTo("none");
		});
	}

	@Test
	void aMalformedOrNegativeDeadlineIsIgnoredAndAHugeOneClamped() {
		serve(server -> {
			for (String malformed : new String[] { "soon", "-5", "1.5", "0x10" }) {
				HttpResponse<String> response = get(server, "/deadline", "X-Request-Timeout", malformed);
				assertThat(response.statusCode()).as(malformed).isEqualTo(200);
				assertThat(response.body()).as(malformed).isEqualTo("none");
			}
			assertThat(get(server, "/deadline", "X-Request-Timeout", "123456789012345678901234567890").body())
				.isEqualTo("3600000");
		});
	}

	@Test
	void withoutPropagationThereIsNoFilterAndNoListener() {
		this.runner.withPropertyValues("retry.http.propagation.enabled=false").run(context -> {
			assertThat(context).doesNotHaveBean(RetryHopsWebFilter.class);
			assertThat(context).doesNotHaveBean(ExhaustionRecordingListener.class);
		});
	}

	@Test
	void withRetryDisabledThereIsNoFilter() {
		this.runner.withPropertyValues("retry.enabled=false")
			.run(context -> assertThat(context).doesNotHaveBean(RetryHopsWebFilter.class));
	}

	private void serve(ServerCheck check) {
		this.runner.run(context -> {
			DisposableServer server = start(context);
			try {
				check.accept(server);
			}
			finally {
				server.disposeNow();
			}
		});
	}

	private static DisposableServer start(AssertableReactiveWebApplicationContext context) {
		ReactiveLeaf leaf = context.getBean(ReactiveLeaf.class);
		RouterFunction<ServerResponse> routes = RouterFunctions.route()
			.GET("/exhausted-503", request -> leaf.fail()
				.flatMap(value -> ServerResponse.ok().bodyValue(value))
				.onErrorResume(IOException.class, ex -> ServerResponse.status(503).bodyValue("leaf down")))
			// Subscribed (so opened) on another thread: only the Reactor Context carries the request's marker there.
			.GET("/exhausted-elsewhere", request -> leaf.fail()
				.subscribeOn(Schedulers.single())
				.flatMap(value -> ServerResponse.ok().bodyValue(value))
				.onErrorResume(IOException.class, ex -> ServerResponse.status(503).bodyValue("leaf down")))
			.GET("/exhausted", request -> leaf.fail().flatMap(value -> ServerResponse.ok().bodyValue(value)))
			.GET("/exhausted-handled", request -> leaf.fail().flatMap(value -> ServerResponse.ok().bodyValue(value)))
			.GET("/exhausted-200", request -> leaf.fail()
				.onErrorReturn("fallback")
				.flatMap(value -> ServerResponse.ok().bodyValue(value)))
			.GET("/recovered-503", request -> leaf.failOnce().flatMap(value -> ServerResponse.status(503).bodyValue(value)))
			.GET("/not-retryable", request -> leaf.refuse().flatMap(value -> ServerResponse.ok().bodyValue(value)))
			.GET("/deadline", request -> Mono.deferContextual(reactor -> ServerResponse.ok()
				.bodyValue(describe(reactor.getOrDefault(Deadline.class, null)))))
			.GET("/deadline-thread", request -> ServerResponse.ok().bodyValue(describe(Deadline.current())))
			.build();
		HttpHandler handler = WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes))
			.filter(context.getBean(RetryHopsWebFilter.class))
			.exceptionHandler((exchange, ex) -> {
				if (!exchange.getRequest().getPath().value().equals("/exhausted-handled")) {
					return Mono.error(ex);
				}
				exchange.getResponse().setStatusCode(HttpStatus.BAD_GATEWAY);
				return exchange.getResponse().setComplete();
			})
			.build();
		return reactor.netty.http.server.HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle(new ReactorHttpHandlerAdapter(handler))
			.bindNow();
	}

	private static String describe(Deadline deadline) {
		return (deadline != null) ? Long.toString(deadline.remaining().toMillis()) : "none";
	}

	private static HttpResponse<String> get(DisposableServer server, String path, String... headers)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
		if (headers.length > 0) {
			request.headers(headers);
		}
		return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@FunctionalInterface
	private interface ServerCheck {

		void accept(DisposableServer server) throws Exception;

	}

	/** Reactive calls of instance {@code leaf}. */
	static class ReactiveLeaf {

		private final AtomicInteger calls = new AtomicInteger();

		@Retryable("leaf")
		public Mono<String> fail() {
			return Mono.error(() -> new IOException("leaf down"));
		}

		@Retryable("leaf")
		public Mono<String> failOnce() {
			return Mono.defer(() -> (this.calls.incrementAndGet() % 2 == 1) ? Mono.error(new IOException("once"))
					: Mono.just("recovered"));
		}

		@Retryable(value = "leaf", noRetryFor = IllegalArgumentException.class)
		public Mono<String> refuse() {
			return Mono.error(() -> new IllegalArgumentException("not for retrying"));
		}

	}

}
