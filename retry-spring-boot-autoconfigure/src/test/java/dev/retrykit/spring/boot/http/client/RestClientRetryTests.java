package dev.retrykit.spring.boot.http.client;

import java.io.IOException;
import java.time.Duration;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpClientAutoConfiguration;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A RestClient built from Boot's builder, against a real server on 127.0.0.1 that the test scripts. */
class RestClientRetryTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = HttpClientRunners.restClient()
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1",
				"retry.instances.downstream.backoff.delay=100ms", "retry.instances.downstream.backoff.jitter=0");

	@Test
	void whenTheDownstreamAnswers503ShouldRetryAndReturnTheAnswerThatFollows() {
		server.then(Answer.status(503), Answer.status(503), Answer.status(200, "stock"));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("stock");
			assertThat(server.received()).hasSize(3);
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2", "3");
			assertThat(context.getBean(VirtualTime.class).sleeps()).containsExactly(Duration.ofMillis(100),
					Duration.ofMillis(200));
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
		});
	}

	@Test
	void whenTheAttemptsRunOutShouldHandTheLastResponseToTheClient() {
		server.always(Answer.status(503, "still down"));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
				.isInstanceOfSatisfying(HttpServerErrorException.class, ex -> {
					assertThat(ex.getStatusCode().value()).isEqualTo(503);
					assertThat(ex.getResponseBodyAsString()).isEqualTo("still down");
				});
			assertThat(server.received()).hasSize(3);
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		});
	}

	@Test
	void aStatusTheInstanceDoesNotListShouldEndTheCall() {
		server.then(Answer.status(500), Answer.status(200));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
				.isInstanceOf(HttpServerErrorException.class);
			assertThat(server.received()).hasSize(1);
		});
	}

	@Test
	void matchHttpStatusOfTheInstanceReplacesTheDefaultStatuses() {
		server.then(Answer.status(500), Answer.status(200, "ok"));
		this.runner.withPropertyValues("retry.instances.downstream.match.http-status=500").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(server.received()).hasSize(2);
		});
	}

	@Test
	void whenTheConnectionDropsShouldRetry() {
		server.then(Answer.drop(), Answer.status(200, "ok"));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2");
		});
	}

	@Test
	void whenTheConnectionIsRefusedShouldRetryThenThrowTheIoFailure() throws IOException {
		int closedPort;
		try (ScriptedHttpServer gone = new ScriptedHttpServer()) {
			closedPort = gone.port();
		}
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl("http://127.0.0.1:" + closedPort).build();
			assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
				.isInstanceOf(ResourceAccessException.class);
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
			assertThat(context.getBean(VirtualTime.class).sleeps()).hasSize(2);
		});
	}

	@Test
	void retryAfterShouldSetTheDelay() {
		server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(context.getBean(VirtualTime.class).sleeps()).containsExactly(Duration.ofSeconds(7));
		});
	}

	@Test
	void honorRetryAfterFalseShouldKeepTheBackoff() {
		server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
		this.runner.withPropertyValues("retry.instances.downstream.honor-retry-after=false").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(context.getBean(VirtualTime.class).sleeps()).containsExactly(Duration.ofMillis(100));
		});
	}

	@Test
	void idempotentMethodsShouldBeRetried() {
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			server.then(Answer.status(503));
			client.put().uri("/stock").body("5").retrieve().toBodilessEntity();
			server.then(Answer.status(503));
			client.delete().uri("/stock").retrieve().toBodilessEntity();
			assertThat(server.received()).extracting(ScriptedHttpServer.Received::method)
				.containsExactly("PUT", "PUT", "DELETE", "DELETE");
			assertThat(server.received()).extracting(ScriptedHttpServer.Received::body).containsExactly("5", "5", "", "");
		});
	}

	@Test
	void aPostShouldBeSentOnceUnlessItCarriesAnIdempotencyKey() {
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			server.then(Answer.status(503));
			assertThatThrownBy(() -> client.post().uri("/orders").body("order").retrieve().toBodilessEntity())
				.isInstanceOf(HttpServerErrorException.class);
			assertThat(server.received()).hasSize(1);
			server.reset();
			server.then(Answer.status(503));
			client.post().uri("/orders").header("Idempotency-Key", "k-1").body("order").retrieve().toBodilessEntity();
			assertThat(server.received()).extracting(ScriptedHttpServer.Received::body).containsExactly("order", "order");
			server.reset();
			server.then(Answer.status(503));
			assertThatThrownBy(() -> client.patch().uri("/orders/1").body("x").retrieve().toBodilessEntity())
				.isInstanceOf(HttpServerErrorException.class);
			assertThat(server.received()).hasSize(1);
		});
	}

	@Test
	void aPostListedInHttpMethodsShouldBeRetried() {
		server.then(Answer.status(503));
		this.runner.withPropertyValues("retry.instances.downstream.http.methods=post").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			client.post().uri("/orders").body("order").retrieve().toBodilessEntity();
			assertThat(server.received()).hasSize(2);
		});
	}

	@Test
	void anIoFailureOfAPostShouldSayWhyItWasNotRetried() {
		server.then(Answer.drop());
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThatThrownBy(() -> client.post().uri("/orders").body("order").retrieve().toBodilessEntity())
				.isInstanceOf(ResourceAccessException.class)
				.satisfies(ex -> {
					assertThat(ex.getCause().getSuppressed()).hasSize(1);
					assertThat(ex.getCause().getSuppressed()[0]).isInstanceOf(NotRetriedException.class)
						.hasMessageContaining("POST is not idempotent")
						.hasMessageContaining("Idempotency-Key");
				});
			assertThat(server.received()).hasSize(1);
		});
	}

	@Test
	void aCallNoInstanceClaimsShouldBeUntouched() {
		// 500 rather than 503: HttpClient 5 retries a 503 to an unclaimed host by itself, as it did before.
		server.then(Answer.status(500));
		this.runner.withPropertyValues("retry.instances.downstream.match.http-status=500").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class)
				.baseUrl("http://localhost:" + server.port())
				.build();
			assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
				.isInstanceOf(HttpServerErrorException.class);
			assertThat(server.received()).hasSize(1);
			assertThat(context.getBean(VirtualTime.class).sleeps()).isEmpty();
		});
	}

	@Test
	void withoutClaimsNoInterceptorShouldBeAdded() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class,
					RetryHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
			.run(context -> context.getBean(RestClient.Builder.class)
				.requestInterceptors(interceptors -> assertThat(interceptors).isEmpty()));
	}

}
