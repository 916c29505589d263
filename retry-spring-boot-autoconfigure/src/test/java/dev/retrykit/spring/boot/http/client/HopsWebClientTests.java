package dev.retrykit.spring.boot.http.client;

import java.time.Duration;

import dev.retrykit.Deadline;
import dev.retrykit.DeadlineExceededException;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Across hops with a WebClient built from Boot's builder on Reactor Netty, against a real server on 127.0.0.1: a
 * marked answer is never retried, each attempt sends the time left of the deadline in the Reactor Context.
 */
class HopsWebClientTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = HttpClientRunners.webClient()
		.withBean(BackoffPacer.class, BackoffPacer::new)
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1",
				"retry.instances.downstream.backoff.delay=100ms", "retry.instances.downstream.backoff.jitter=0");

	private static WebClient client(WebClient.Builder builder) {
		return builder.baseUrl(server.url()).clientConnector(new ReactorClientHttpConnector()).build();
	}

	@Test
	void anAnswerMarkedExhaustedIsNotRetriedAndReachesTheClientAsItCame() {
		server.always(Answer.exhausted(503, "leaf"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			assertThatThrownBy(
					() -> VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
				.isInstanceOfSatisfying(WebClientResponseException.class, ex -> {
					assertThat(ex.getStatusCode().value()).isEqualTo(503);
					assertThat(ex.getResponseBodyAsString()).isEqualTo("gave up");
					assertThat(ex.getHeaders().getFirst("X-Retry-Exhausted")).isEqualTo("leaf");
				});
			assertThat(server.received()).hasSize(1);
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getDownstreamExhaustedRejections()).isEqualTo(1);
			assertThat(time.elapsed()).isZero();
		});
	}

	@Test
	void withoutPropagationAMarkedAnswerIsRetriedAsAnyOther() {
		server.always(Answer.exhausted(503, "leaf"));
		this.runner.withPropertyValues("retry.http.propagation.enabled=false").run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			assertThatThrownBy(
					() -> VirtualTimeDriver.await(client.get().uri("/stock").retrieve().bodyToMono(String.class), time))
				.isInstanceOf(WebClientResponseException.class);
			assertThat(server.received()).hasSize(3);
		});
	}

	@Test
	void eachAttemptSendsTheTimeLeftOfTheDeadlineInTheReactorContext() {
		server.then(Answer.status(503), Answer.status(503), Answer.status(200, "stock"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			Mono<String> call = client.get().uri("/stock").retrieve().bodyToMono(String.class)
				.contextWrite(Context.of(Deadline.class, Deadline.after(Duration.ofSeconds(1), time)));
			assertThat(context.getBean(BackoffPacer.class).await(call, time)).isEqualTo("stock");
			assertThat(server.header("X-Request-Timeout")).containsExactly("1000", "900", "700");
		});
	}

	@Test
	void eachAttemptSendsTheTimeLeftOfTheDeadlineOfTheSubscribingThread() {
		server.then(Answer.status(503), Answer.status(200, "stock"));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			Mono<String> call = client.get().uri("/stock").retrieve().bodyToMono(String.class);
			String stock;
			try (Deadline.Scope scope = Deadline.after(Duration.ofSeconds(2), time).enter()) {
				stock = context.getBean(BackoffPacer.class).await(call, time);
			}
			assertThat(stock).isEqualTo("stock");
			assertThat(server.header("X-Request-Timeout")).containsExactly("2000", "1900");
		});
	}

	@Test
	void noAttemptStartsAfterTheDeadline() {
		server.always(Answer.status(503));
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			Mono<String> call = client.get().uri("/stock").retrieve().bodyToMono(String.class)
				.contextWrite(Context.of(Deadline.class, Deadline.after(Duration.ofMillis(250), time)));
			assertThatThrownBy(() -> context.getBean(BackoffPacer.class).await(call, time))
				.isInstanceOfSatisfying(WebClientResponseException.class,
						ex -> assertThat(ex.getStatusCode().value()).isEqualTo(503));
			assertThat(server.header("X-Request-Timeout")).containsExactly("250", "150");
			RetryTemplate downstream = context.getBean("downstreamRetryTemplate", RetryTemplate.class);
			assertThat(downstream.getMetrics().getDeadlineRejections()).isEqualTo(1);
		});
	}

	@Test
	void aDeadlineThatHasPassedSendsNothing() {
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			Mono<String> call = client.get().uri("/stock").retrieve().bodyToMono(String.class)
				.contextWrite(Context.of(Deadline.class, Deadline.after(Duration.ZERO, time)));
			assertThatThrownBy(() -> context.getBean(BackoffPacer.class).await(call, time))
				.isInstanceOf(DeadlineExceededException.class)
				.hasMessageContaining("ran no attempt");
			assertThat(server.received()).isEmpty();
		});
	}

	@Test
	void anAttemptWithLessThanAMillisecondLeftIsNotSentAndSaysWhy() {
		this.runner.withPropertyValues("retry.instances.downstream.max-attempts=1").run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			// The call opens (its deadline has not passed) but its header would say 0 ms: nobody waits for an answer.
			Mono<String> call = client.get().uri("/stock").retrieve().bodyToMono(String.class)
				.contextWrite(Context.of(Deadline.class, Deadline.after(Duration.ofNanos(400_000), time)));
			assertThatThrownBy(() -> context.getBean(BackoffPacer.class).await(call, time))
				.isInstanceOf(WebClientRequestException.class)
				.hasRootCauseInstanceOf(PastDeadlineException.class)
				.rootCause().hasMessage("Less than a millisecond left before the deadline: not sent, GET "
						+ server.url() + "/stock");
			assertThat(server.received()).isEmpty();
		});
	}

	@Test
	void withoutPropagationNoDeadlineHeaderIsSent() {
		server.then(Answer.status(200, "stock"));
		this.runner.withPropertyValues("retry.http.propagation.enabled=false").run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			WebClient client = client(context.getBean(WebClient.Builder.class));
			Mono<String> call = client.get().uri("/stock").retrieve().bodyToMono(String.class)
				.contextWrite(Context.of(Deadline.class, Deadline.after(Duration.ofSeconds(1), time)));
			assertThat(context.getBean(BackoffPacer.class).await(call, time)).isEqualTo("stock");
			assertThat(server.header("X-Request-Timeout")).containsExactly("-");
		});
	}

}
