package dev.retrykit.spring.boot.http.client;

import java.time.Duration;
import java.util.Map;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryReconfigurer;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code retry.http.attempt-header} and an instance's {@code honor-retry-after} change live, as the rest of
 * {@code retry.*} does: a reconfiguration ({@link RetryReconfigurer}) applies them to the clients already built. A real
 * server on 127.0.0.1.
 */
class HttpLiveChangesTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = HttpClientRunners.restClient()
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1",
				"retry.instances.downstream.backoff.delay=100ms", "retry.instances.downstream.backoff.jitter=0");

	private static void change(AssertableApplicationContext context, Map<String, Object> values) {
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("change" + values.hashCode(), values));
	}

	@Test
	void theAttemptHeaderShouldFollowALiveChange() {
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			server.then(Answer.status(503), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			change(context, Map.of("retry.http.attempt-header", "X-Try"));
			context.getBean(RetryReconfigurer.class).reconfigure();
			server.then(Answer.status(503), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2", "-", "-");
			assertThat(server.header("X-Try")).containsExactly("-", "-", "-", "2");
		});
	}

	@Test
	void anInvalidAttemptHeaderShouldBeRejectedAndTheRunningOneStay() {
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			change(context, Map.of("retry.http.attempt-header", "X Try"));
			assertThatThrownBy(() -> context.getBean(RetryReconfigurer.class).reconfigure())
				.hasMessageContaining("retry.http.attempt-header");
			server.then(Answer.status(503), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2");
		});
	}

	@Test
	void theRetryAfterChoiceShouldFollowALiveChange() {
		this.runner.run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			VirtualTime time = context.getBean(VirtualTime.class);
			server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			change(context, Map.of("retry.instances.downstream.honor-retry-after", "false"));
			context.getBean(RetryReconfigurer.class).reconfigure();
			server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			change(context, Map.of("retry.instances.downstream.honor-retry-after", "true"));
			context.getBean(RetryReconfigurer.class).reconfigure();
			server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(7), Duration.ofMillis(100),
					Duration.ofSeconds(7));
		});
	}

	@Test
	void aRetryAfterTurnedOffAtStartupShouldTurnOnLive() {
		this.runner.withPropertyValues("retry.instances.downstream.honor-retry-after=false").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			change(context, Map.of("retry.instances.downstream.honor-retry-after", "true"));
			context.getBean(RetryReconfigurer.class).reconfigure();
			server.then(Answer.retryAfter(429, "7"), Answer.status(200, "ok"));
			assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(context.getBean(VirtualTime.class).sleeps()).containsExactly(Duration.ofMillis(100),
					Duration.ofSeconds(7));
		});
	}

}
