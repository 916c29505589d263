package dev.retrykit.spring.boot.http.client;

import java.time.Duration;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A WebClient built from Boot's builder on Reactor Netty, against a real server on 127.0.0.1 that the test scripts. */
class WebClientRetryTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = HttpClientRunners.webClient()
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1",
				"retry.instances.downstream.backoff.delay=100ms", "retry.instances.downstream.backoff.jitter=0");

	private static WebClient client(WebClient.Builder builder, String baseUrl) {
		return builder.baseUrl(baseUrl).clientConnector(new ReactorClientHttpConnector()).build();
	}

	@Test
	void whenTheDownstreamAnswers503ShouldRetryAndReturnTheAnswerThatFollows() throws Throwable {
		server.then(Answer.status(503), Answer.status(503), Answer.status(200, "stock"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class), server.url());
			assertThat(VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
				.isEqualTo("stock");
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2", "3");
			assertThat(time.elapsed()).isEqualTo(Duration.ofMillis(300));
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
		});
	}

	@Test
	void whenTheAttemptsRunOutShouldHandTheLastResponseToTheClient() {
		server.always(Answer.status(503, "still down"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class), server.url());
			assertThatThrownBy(
					() -> VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
				.isInstanceOfSatisfying(WebClientResponseException.class, ex -> {
					assertThat(ex.getStatusCode().value()).isEqualTo(503);
					assertThat(ex.getResponseBodyAsString()).isEqualTo("still down");
				});
			assertThat(server.received()).hasSize(3);
		});
	}

	@Test
	void whenTheConnectionDropsShouldRetry() {
		server.then(Answer.drop(), Answer.status(200, "ok"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class), server.url());
			assertThat(VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
				.isEqualTo("ok");
			assertThat(server.header("X-Retry-Attempt")).endsWith("2");
		});
	}

	@Test
	void retryAfterShouldSetTheDelay() {
		server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class), server.url());
			assertThat(VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
				.isEqualTo("ok");
			assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(7));
		});
	}

	@Test
	void aPostShouldBeSentOnceUnlessItCarriesAnIdempotencyKey() {
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class), server.url());
			server.then(Answer.status(503));
			assertThatThrownBy(() -> VirtualTimeDriver.await(
					client.post().uri("/orders").bodyValue("order").retrieve().toBodilessEntity(), time))
				.isInstanceOf(WebClientResponseException.class);
			assertThat(server.received()).hasSize(1);
			server.reset();
			server.then(Answer.status(503));
			VirtualTimeDriver.await(client.post()
				.uri("/orders")
				.header("Idempotency-Key", "k-1")
				.bodyValue("order")
				.retrieve()
				.toBodilessEntity(), time);
			assertThat(server.received()).extracting(ScriptedHttpServer.Received::body).containsExactly("order", "order");
		});
	}

	@Test
	void anIoFailureOfAPostShouldSayWhyItWasNotRetried() {
		server.then(Answer.drop());
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class), server.url());
			assertThatThrownBy(() -> VirtualTimeDriver.await(
					client.post().uri("/orders").bodyValue("order").retrieve().toBodilessEntity(), time))
				.isInstanceOfSatisfying(WebClientRequestException.class, ex -> {
					assertThat(ex.getSuppressed()).filteredOn(NotRetriedException.class::isInstance)
						.singleElement()
						.satisfies(note -> assertThat(note).hasMessageContaining("POST is not idempotent"));
				});
		});
	}

	@Test
	void aCallNoInstanceClaimsShouldBeUntouched() {
		server.then(Answer.status(503));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class), "http://localhost:" + server.port());
			assertThatThrownBy(
					() -> VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
				.isInstanceOf(WebClientResponseException.class);
			assertThat(server.received()).hasSize(1);
		});
	}

	@Test
	void aHedgingInstanceShouldRaceCopiesOfTheCall() {
		server.then(Answer.status(503), Answer.status(200, "ok"));
		this.runner
			.withPropertyValues("retry.instances.downstream.hedging.enabled=true",
					"retry.instances.downstream.hedging.delay=50ms", "retry.instances.downstream.max-attempts=2")
			.run(context -> {
				VirtualTime time = context.getBean(VirtualTime.class);
				WebClient client = client(context.getBean(WebClient.Builder.class), server.url());
				assertThat(VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
					.isEqualTo("ok");
				// The hedge may reach the server first: the delay runs in virtual time while the first copy is on the wire.
				assertThat(server.header("X-Retry-Attempt")).containsExactlyInAnyOrder("-", "2");
			});
	}

	@Test
	void retriedCallsShouldGiveBackEveryPooledConnection() {
		// One connection: a failed attempt whose response were not released would keep it, and the next attempt
		// would wait for it until the pool's acquire timeout.
		ConnectionProvider provider = ConnectionProvider.builder("one-connection")
			.maxConnections(1)
			.pendingAcquireTimeout(Duration.ofSeconds(5))
			.build();
		try {
			this.runner.withPropertyValues("retry.instances.downstream.backoff.type=none").run(context -> {
				VirtualTime time = context.getBean(VirtualTime.class);
				WebClient client = context.getBean(WebClient.Builder.class)
					.baseUrl(server.url())
					.clientConnector(new ReactorClientHttpConnector(HttpClient.create(provider)))
					.build();
				for (int i = 0; i < 1000; i++) {
					server.then(Answer.status(503, "busy"), Answer.status(200, "ok"));
					assertThat(VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class),
							time))
						.isEqualTo("ok");
				}
				server.always(Answer.status(503, "down"));
				for (int i = 0; i < 50; i++) {
					assertThatThrownBy(() -> VirtualTimeDriver
						.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
						.isInstanceOf(WebClientResponseException.class);
				}
				assertThat(server.received()).hasSize(2000 + 150);
			});
		}
		finally {
			provider.dispose();
		}
	}

}
