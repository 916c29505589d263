package dev.retrykit.spring.boot.http.client;

import java.net.SocketTimeoutException;
import java.time.Duration;

import dev.retrykit.Deadline;
import dev.retrykit.DeadlineExceededException;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Across hops with a RestClient built from Boot's builder, against a real server on 127.0.0.1: a marked answer is
 * never retried, each attempt sends the time left of the deadline it runs under, none starts after it.
 */
class HopsRestClientTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = HttpClientRunners.restClient()
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1",
				"retry.instances.downstream.backoff.delay=100ms", "retry.instances.downstream.backoff.jitter=0");

	@Test
	void anAnswerMarkedExhaustedIsNotRetriedAndReachesTheClientAsItCame() {
		server.always(Answer.exhausted(503, "leaf"));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
				.isInstanceOfSatisfying(HttpServerErrorException.class, ex -> {
					assertThat(ex.getStatusCode().value()).isEqualTo(503);
					assertThat(ex.getResponseBodyAsString()).isEqualTo("gave up");
					assertThat(ex.getResponseHeaders().getFirst("X-Retry-Exhausted")).isEqualTo("leaf");
				});
			assertThat(server.received()).hasSize(1);
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getDownstreamExhaustedRejections()).isEqualTo(1);
			assertThat(context.getBean(VirtualTime.class).sleeps()).isEmpty();
		});
	}

	@Test
	void withoutPropagationAMarkedAnswerIsRetriedAsAnyOther() {
		server.always(Answer.exhausted(503, "leaf"));
		this.runner.withPropertyValues("retry.http.propagation.enabled=false").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
				.isInstanceOf(HttpServerErrorException.class);
			assertThat(server.received()).hasSize(3);
		});
	}

	@Test
	void eachAttemptSendsTheTimeLeftBeforeTheDeadline() {
		server.then(Answer.status(503), Answer.status(503), Answer.status(200, "stock"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			try (Deadline.Scope scope = Deadline.after(Duration.ofSeconds(1), time).enter()) {
				assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("stock");
			}
			assertThat(server.header("X-Request-Timeout")).containsExactly("1000", "900", "700");
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2", "3");
		});
	}

	@Test
	void withoutADeadlineNoDeadlineHeaderIsSent() {
		server.then(Answer.status(503), Answer.status(200, "stock"));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("stock");
			assertThat(server.header("X-Request-Timeout")).containsExactly("-", "-");
		});
	}

	@Test
	void noAttemptStartsAfterTheDeadline() {
		server.always(Answer.status(503));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			// Attempts at 0 and 100 ms; the third would start at 300 ms, after the deadline.
			try (Deadline.Scope scope = Deadline.after(Duration.ofMillis(250), time).enter()) {
				assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
					.isInstanceOfSatisfying(HttpServerErrorException.class,
							ex -> assertThat(ex.getStatusCode().value()).isEqualTo(503));
			}
			assertThat(server.header("X-Request-Timeout")).containsExactly("250", "150");
			assertThat(time.sleeps()).containsExactly(Duration.ofMillis(100));
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getDeadlineRejections()).isEqualTo(1);
		});
	}

	@Test
	void anAttemptInFlightWaitsForItsAnswerNoLongerThanTheDeadline() {
		server.always(Answer.hang());
		this.runner.withPropertyValues("retry.instances.downstream.max-attempts=1").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			long start = System.nanoTime();
			// On the system clock: Apache HttpClient's response timeout becomes the 300 ms left.
			try (Deadline.Scope scope = Deadline.after(Duration.ofMillis(300)).enter()) {
				assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
					.isInstanceOf(ResourceAccessException.class)
					.hasRootCauseInstanceOf(SocketTimeoutException.class);
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(250),
					Duration.ofSeconds(10));
			assertThat(server.header("X-Request-Timeout")).hasSize(1);
		});
	}

	@Test
	void aDeadlineThatHasPassedSendsNothing() {
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			try (Deadline.Scope scope = Deadline.after(Duration.ZERO, time).enter()) {
				assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
					.isInstanceOf(DeadlineExceededException.class)
					.hasMessageContaining("ran no attempt");
			}
			assertThat(server.received()).isEmpty();
		});
	}

	@Test
	void anAttemptWithLessThanAMillisecondLeftIsNotSentAndSaysWhy() {
		this.runner.withPropertyValues("retry.instances.downstream.max-attempts=1").run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			// The call opens (its deadline has not passed) but its header would say 0 ms: nobody waits for an answer.
			try (Deadline.Scope scope = Deadline.after(Duration.ofNanos(400_000), time).enter()) {
				assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
					.isInstanceOf(ResourceAccessException.class)
					.hasRootCauseInstanceOf(PastDeadlineException.class)
					.rootCause().hasMessage("Less than a millisecond left before the deadline: not sent, GET "
							+ server.url() + "/stock");
			}
			assertThat(server.received()).isEmpty();
		});
	}

	@Test
	void withoutPropagationNoDeadlineHeaderIsSent() {
		server.then(Answer.status(200, "stock"));
		this.runner.withPropertyValues("retry.http.propagation.enabled=false").run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			try (Deadline.Scope scope = Deadline.after(Duration.ofSeconds(1), time).enter()) {
				assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("stock");
			}
			assertThat(server.header("X-Request-Timeout")).containsExactly("-");
		});
	}

	@Test
	void theDeadlineHeaderNameIsConfigurable() {
		server.then(Answer.status(200, "stock"));
		this.runner.withPropertyValues("retry.http.deadline-header=Request-Budget-Ms").run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			try (Deadline.Scope scope = Deadline.after(Duration.ofSeconds(2), time).enter()) {
				client.get().uri("/stock").retrieve().body(String.class);
			}
			assertThat(server.header("Request-Budget-Ms")).containsExactly("2000");
			assertThat(server.header("X-Request-Timeout")).containsExactly("-");
		});
	}

}
