package dev.retrykit.spring.boot.http.client;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Received;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.http.client.MultipartBodyBuilder;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The request bodies of a retried {@code WebClient} call, against a real server on 127.0.0.1: a body from a publisher
 * that can be subscribed once is kept as it is sent (up to {@link ReplayableBody#MAX_REPLAY}) and sent again byte for
 * byte; a longer one is sent once, and the call's failure says why it was not retried.
 */
class WebClientBodyReplayTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = HttpClientRunners.webClient()
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1",
				"retry.instances.downstream.backoff.delay=100ms", "retry.instances.downstream.backoff.jitter=0");

	private static WebClient client(WebClient.Builder builder) {
		return builder.baseUrl(server.url()).clientConnector(new ReactorClientHttpConnector()).build();
	}

	/** {@return a body that emits its chunks to its first subscriber only: a later one gets an empty body} */
	private static Flux<String> oneShot(AtomicInteger subscriptions, String... chunks) {
		return Flux.defer(() -> (subscriptions.incrementAndGet() == 1) ? Flux.just(chunks) : Flux.empty());
	}

	@Test
	void aBodyFromAPublisherShouldBeSentAgainByteForByteOn503() throws Throwable {
		server.then(Answer.status(503), Answer.status(503), Answer.status(200, "stored"));
		AtomicInteger subscriptions = new AtomicInteger();
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			assertThat(VirtualTimeDriver.await(client(context.getBean(WebClient.Builder.class)).put()
				.uri("/stock")
				.contentType(MediaType.TEXT_PLAIN)
				.body(oneShot(subscriptions, "a", "b", "c"), String.class)
				.retrieve()
				.bodyToMono(String.class), time)).isEqualTo("stored");
			assertThat(server.received()).extracting(Received::body).containsExactly("abc", "abc", "abc");
			assertThat(server.header("Content-Type")).containsOnly("text/plain");
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2", "3");
			assertThat(subscriptions).hasValue(1);
		});
	}

	@Test
	void aBodyFromAPublisherShouldBeSentAgainAfterADroppedConnection() throws Throwable {
		server.then(Answer.drop(), Answer.status(200, "stored"));
		AtomicInteger subscriptions = new AtomicInteger();
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			assertThat(VirtualTimeDriver.await(client(context.getBean(WebClient.Builder.class)).put()
				.uri("/stock")
				.contentType(MediaType.TEXT_PLAIN)
				.body(oneShot(subscriptions, "x", "y"), String.class)
				.retrieve()
				.bodyToMono(String.class), time)).isEqualTo("stored");
			assertThat(server.received()).extracting(Received::body).containsExactly("xy", "xy");
			assertThat(subscriptions).hasValue(1);
		});
	}

	@Test
	void aMultipartBodyShouldBeSentAgainWithTheSameBoundary() throws Throwable {
		server.then(Answer.status(503), Answer.status(200, "stored"));
		MultipartBodyBuilder parts = new MultipartBodyBuilder();
		parts.part("name", "widget");
		parts.part("count", "3");
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			assertThat(VirtualTimeDriver.await(client(context.getBean(WebClient.Builder.class)).put()
				.uri("/stock")
				.body(BodyInserters.fromMultipartData(parts.build()))
				.retrieve()
				.bodyToMono(String.class), time)).isEqualTo("stored");
			assertThat(server.received()).hasSize(2);
			assertThat(server.received().get(1).body()).isEqualTo(server.received().get(0).body()).contains("widget");
			assertThat(server.header("Content-Type").get(1)).isEqualTo(server.header("Content-Type").get(0))
				.startsWith("multipart/form-data");
		});
	}

	@Test
	void aBodyLongerThanTheReplayLimitShouldBeSentOnceOn503() {
		server.always(Answer.status(503, "busy"));
		AtomicInteger subscriptions = new AtomicInteger();
		String chunk = "z".repeat(64 * 1024);
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			assertThatThrownBy(() -> VirtualTimeDriver.await(client(context.getBean(WebClient.Builder.class)).put()
				.uri("/stock")
				.contentType(MediaType.TEXT_PLAIN)
				.body(oneShot(subscriptions, chunk, chunk, chunk, chunk, chunk), String.class)
				.retrieve()
				.bodyToMono(String.class), time))
				.isInstanceOfSatisfying(WebClientResponseException.class,
						ex -> assertThat(ex.getStatusCode().value()).isEqualTo(503));
			assertThat(server.received()).singleElement()
				.satisfies(received -> assertThat(received.body()).hasSize(5 * 64 * 1024));
			assertThat(subscriptions).hasValue(1);
		});
	}

	@Test
	void anIoFailureOfABodyLongerThanTheReplayLimitShouldSayWhyItWasNotRetried() {
		server.then(Answer.drop());
		AtomicInteger subscriptions = new AtomicInteger();
		String chunk = "z".repeat(64 * 1024);
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			assertThatThrownBy(() -> VirtualTimeDriver.await(client(context.getBean(WebClient.Builder.class)).put()
				.uri("/stock")
				.contentType(MediaType.TEXT_PLAIN)
				.body(oneShot(subscriptions, chunk, chunk, chunk, chunk, chunk), String.class)
				.retrieve()
				.bodyToMono(String.class), time))
				.isInstanceOfSatisfying(WebClientRequestException.class,
						ex -> assertThat(ex.getSuppressed()).filteredOn(NotRetriedException.class::isInstance)
							.singleElement()
							.satisfies(note -> assertThat(note).hasMessageContaining("request body")
								.hasMessageContaining(Integer.toString(ReplayableBody.MAX_REPLAY))));
			assertThat(server.received()).hasSize(1);
			assertThat(subscriptions).hasValue(1);
		});
	}

	@Test
	void hedgedCopiesShouldSendTheSameBody() throws Throwable {
		server.then(Answer.status(503), Answer.status(200, "stored"));
		AtomicInteger subscriptions = new AtomicInteger();
		this.runner
			.withPropertyValues("retry.instances.downstream.hedging.enabled=true",
					"retry.instances.downstream.hedging.delay=50ms", "retry.instances.downstream.max-attempts=2")
			.run(context -> {
				VirtualTime time = context.getBean(VirtualTime.class);
				assertThat(VirtualTimeDriver.await(client(context.getBean(WebClient.Builder.class)).put()
					.uri("/stock")
					.contentType(MediaType.TEXT_PLAIN)
					.body(oneShot(subscriptions, "h", "e", "d", "g", "e"), String.class)
					.retrieve()
					.bodyToMono(String.class), time)).isEqualTo("stored");
				assertThat(server.received()).extracting(Received::body).containsExactly("hedge", "hedge");
				assertThat(subscriptions).hasValue(1);
			});
	}

	@Test
	void aHedgeThatStartsWhileTheBodyIsStillWrittenShouldSendTheSameBytes() throws Throwable {
		// Whichever copy reaches the server first hangs there; the other one answers.
		server.then(Answer.hang()).always(Answer.status(200, "stored"));
		Sinks.Many<String> chunks = Sinks.many().unicast().onBackpressureBuffer();
		this.runner
			.withPropertyValues("retry.instances.downstream.hedging.enabled=true",
					"retry.instances.downstream.hedging.delay=50ms", "retry.instances.downstream.max-attempts=2")
			.run(context -> {
				VirtualTime time = context.getBean(VirtualTime.class);
				CompletableFuture<String> call = client(context.getBean(WebClient.Builder.class)).put()
					.uri("/stock")
					.contentType(MediaType.TEXT_PLAIN)
					.body(chunks.asFlux(), String.class)
					.retrieve()
					.bodyToMono(String.class)
					.toFuture();
				chunks.tryEmitNext("slow ");
				// The hedge's delay passes while the first copy still writes its body.
				Duration hedge = time.untilNextTask();
				assertThat(hedge).isNotNull();
				time.advance(hedge);
				chunks.tryEmitNext("body");
				chunks.tryEmitComplete();
				assertThat(VirtualTimeDriver.await(Mono.fromFuture(call), time)).isEqualTo("stored");
				assertThat(server.received()).extracting(Received::body).containsExactly("slow body", "slow body");
			});
	}

	@Test
	void aHedgeWithABodyTooLongToKeepShouldLeaveTheCallToTheCopyThatSentIt() throws Throwable {
		server.then(Answer.held(200, "stored"));
		AtomicInteger subscriptions = new AtomicInteger();
		String chunk = "z".repeat(64 * 1024);
		this.runner
			.withPropertyValues("retry.instances.downstream.hedging.enabled=true",
					"retry.instances.downstream.hedging.delay=50ms", "retry.instances.downstream.max-attempts=2")
			.run(context -> {
				VirtualTime time = context.getBean(VirtualTime.class);
				CompletableFuture<String> call = client(context.getBean(WebClient.Builder.class)).put()
					.uri("/stock")
					.contentType(MediaType.TEXT_PLAIN)
					.body(oneShot(subscriptions, chunk, chunk, chunk, chunk, chunk), String.class)
					.retrieve()
					.bodyToMono(String.class)
					.toFuture();
				// The first copy's whole body is at the server, which holds its answer; then the hedge's delay passes.
				await(() -> server.received().size() == 1 && time.untilNextTask() != null);
				time.advance(Duration.ofMillis(50));
				server.release();
				assertThat(VirtualTimeDriver.await(Mono.fromFuture(call), time)).isEqualTo("stored");
				assertThat(server.received()).singleElement()
					.satisfies(received -> assertThat(received.body()).hasSize(5 * 64 * 1024));
				assertThat(subscriptions).hasValue(1);
			});
	}

	private static void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out");
			}
			LockSupport.parkNanos(1_000_000);
		}
	}

	@Test
	void aBodyOfBytesShouldBeSentAgainAsItIs() throws Throwable {
		server.then(Answer.status(502), Answer.status(200, "stored"));
		byte[] bytes = "päckchen".getBytes(StandardCharsets.UTF_8);
		this.runner.run(context -> {
			VirtualTime time = context.getBean(VirtualTime.class);
			assertThat(VirtualTimeDriver.await(client(context.getBean(WebClient.Builder.class)).put()
				.uri("/stock")
				.contentType(MediaType.APPLICATION_OCTET_STREAM)
				.bodyValue(bytes)
				.retrieve()
				.bodyToMono(String.class), time)).isEqualTo("stored");
			assertThat(server.received()).extracting(Received::body).containsExactly("päckchen", "päckchen");
		});
	}

}
