package dev.retrykit.spring.boot.http.client;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpClientAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.observation.RetryObservationAutoConfiguration;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationPredicate;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.WebClientObservationAutoConfiguration;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One trace shows a retried call nested: retry.call, its retry.attempt observations, and under each attempt the
 * http.client.requests observation of the request it sent. A real registry, with Boot's observation and RestClient
 * instrumentation, and a handler that records each observation's parent.
 */
class HttpAttemptObservationTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, RetryAutoConfiguration.class,
				RetryObservationAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				RestClientObservationAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(ParentRecorder.class, ParentRecorder::new)
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1");

	@Test
	void eachAttemptsRequestShouldBeTheChildOfItsRetryAttempt() {
		server.then(Answer.status(503), Answer.status(200, "ok"));
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			Observation.createNotStarted("shop.request", context.getBean(ObservationRegistry.class))
				.observe(() -> assertThat(client.get().uri("/stock/{sku}", "a").retrieve().body(String.class))
					.isEqualTo("ok"));
			List<String> stopped = context.getBean(ParentRecorder.class).stopped;
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2");
			assertThat(stopped).containsExactly("http.client.requests <- retry.attempt",
					"retry.attempt <- retry.call", "http.client.requests <- retry.attempt", "retry.attempt <- retry.call",
					"retry.call <- shop.request", "shop.request <- none");
		});
	}

	@Test
	void eachAttemptOfAWebClientCallShouldBeTheChildOfItsRetryAttempt() {
		server.then(Answer.status(503), Answer.status(200, "ok"));
		this.runner.withConfiguration(AutoConfigurations.of(WebClientAutoConfiguration.class,
				WebClientObservationAutoConfiguration.class))
			.withPropertyValues("retry.instances.downstream.backoff.type=none")
			.run(context -> {
				WebClient client = context.getBean(WebClient.Builder.class)
					.baseUrl(server.url())
					.clientConnector(new ReactorClientHttpConnector())
					.build();
				assertThat(VirtualTimeDriver.await(client.get().uri("/stock/{sku}", "a").retrieve().bodyToMono(String.class),
						context.getBean(VirtualTime.class))).isEqualTo("ok");
				List<String> stopped = context.getBean(ParentRecorder.class).stopped;
				assertThat(stopped).filteredOn(line -> line.startsWith("http.client.requests"))
					.containsExactly("http.client.requests <- retry.attempt", "http.client.requests <- retry.attempt");
				assertThat(stopped).filteredOn(line -> line.startsWith("retry.attempt"))
					.containsExactly("retry.attempt <- retry.call", "retry.attempt <- retry.call");
			});
	}

	@Test
	void aCallNoInstanceClaimsShouldKeepTheClientsOwnObservation() {
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class)
				.baseUrl("http://localhost:" + server.port())
				.build();
			client.get().uri("/stock").retrieve().body(String.class);
			assertThat(context.getBean(ParentRecorder.class).stopped).containsExactly("http.client.requests <- none");
		});
	}

	@Test
	void thePredicateShouldDropOnlyTheClaimedCallsObservation() {
		this.runner.run(context -> {
			ObservationRegistry registry = context.getBean(ObservationRegistry.class);
			assertThat(context.getBeansOfType(ObservationPredicate.class)).containsValue(
					context.getBean(ClaimedCallsObservationPredicate.class));
			assertThat(registry.isNoop()).isFalse();
		});
	}

	/** Records each observation's name and its parent's when it stops. */
	static final class ParentRecorder implements ObservationHandler<Observation.Context> {

		final List<String> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(Observation.Context context) {
			io.micrometer.observation.ObservationView parent = context.getParentObservation();
			this.stopped.add(context.getName() + " <- "
					+ ((parent != null) ? parent.getContextView().getName() : "none"));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
