package dev.retrykit.spring.boot.http.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two tiers on 127.0.0.1: a real servlet application (the middle tier) whose handler calls a scripted leaf through
 * a RestClient built from Boot's builder, and the test as the top tier. The middle tier retries a failing leaf and
 * marks its own error answer; it does not retry a leaf that says it gave up, and passes the mark on; it forwards the
 * time left of the deadline its caller sent.
 */
class HopsTwoTierTests {

	private static ScriptedHttpServer leaf;

	private static final HttpClient top = HttpClient.newHttpClient();

	@BeforeAll
	static void startLeaf() throws IOException {
		leaf = new ScriptedHttpServer();
	}

	@AfterAll
	static void stopLeaf() {
		leaf.close();
	}

	@BeforeEach
	void resetLeaf() {
		leaf.reset();
	}

	private static ConfigurableApplicationContext middle(String... properties) {
		return new SpringApplicationBuilder(MiddleTier.class)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"leaf.url=" + leaf.url(), "retry.instances.leaf.http.hosts=127.0.0.1",
					"retry.instances.leaf.backoff.delay=100ms", "retry.instances.leaf.backoff.jitter=0")
			.properties(properties)
			.run();
	}

	private static HttpResponse<String> get(ConfigurableApplicationContext middle, String... headers)
			throws IOException, InterruptedException {
		int port = ((WebServerApplicationContext) middle).getWebServer().getPort();
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/stock"));
		if (headers.length > 0) {
			request.headers(headers);
		}
		return top.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void theTierNextToTheFailingLeafRetriesAndMarksItsAnswer() throws Exception {
		leaf.always(Answer.status(503));
		try (ConfigurableApplicationContext middle = middle()) {
			HttpResponse<String> response = get(middle);
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
			assertThat(leaf.received()).hasSize(3);
		}
	}

	@Test
	void aTierWhoseLeafGaveUpDoesNotRetryAndPassesTheMarkOn() throws Exception {
		leaf.always(Answer.exhausted(503, "deeper"));
		try (ConfigurableApplicationContext middle = middle()) {
			HttpResponse<String> response = get(middle);
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
			assertThat(leaf.received()).hasSize(1);
			RetryTemplate calls = middle.getBean("leafRetryTemplate", RetryTemplate.class);
			assertThat(calls.getMetrics().getDownstreamExhaustedRejections()).isEqualTo(1);
		}
	}

	@Test
	void theDeadlineTheTopTierSentReachesTheLeafWithTheTimeLeft() throws Exception {
		leaf.then(Answer.status(503), Answer.status(200, "42"));
		try (ConfigurableApplicationContext middle = middle()) {
			HttpResponse<String> response = get(middle, "X-Request-Timeout", "1500");
			assertThat(response.body()).isEqualTo("42");
			// Virtual time: the middle tier's clock moves by the backoff only.
			assertThat(leaf.header("X-Request-Timeout")).containsExactly("1500", "1400");
		}
	}

	@Test
	void withoutPropagationNothingIsMarkedSentOrHonoured() throws Exception {
		leaf.always(Answer.exhausted(503, "deeper"));
		try (ConfigurableApplicationContext middle = middle("retry.http.propagation.enabled=false")) {
			HttpResponse<String> response = get(middle, "X-Request-Timeout", "1500");
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
			assertThat(leaf.received()).hasSize(3);
			assertThat(leaf.header("X-Request-Timeout")).containsExactly("-", "-", "-");
		}
	}

	/** The middle tier: one handler that asks the leaf. In virtual time; no component scan; no Redis. */
	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
	static class MiddleTier {

		@Bean
		VirtualTime virtualTime() {
			return new VirtualTime();
		}

		@RestController
		static class Stock {

			private final RestClient leaf;

			Stock(RestClient.Builder builder, @Value("${leaf.url}") String url) {
				this.leaf = builder.baseUrl(url).build();
			}

			@GetMapping("/stock")
			String stock() {
				return this.leaf.get().uri("/stock").retrieve().body(String.class);
			}

		}

	}

}
