package dev.retrykit.spring.boot.http.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The servlet filter in a real application on 127.0.0.1: an error response is marked when a {@code @Retryable} call
 * of the request gave up (sync through the error dispatch, a 503 {@code ResponseEntity}, a {@code CompletableFuture}
 * through the async dispatch, a {@code Mono}), and only then; a request runs under its {@code X-Request-Timeout}.
 */
class RetryHopsServletFilterTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	static HttpResponse<String> get(int port, String path, String... headers) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
		if (headers.length > 0) {
			request.headers(headers);
		}
		return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Nested
	@SpringBootTest(classes = HopsServletApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "server.address=127.0.0.1", "retry.instances.leaf.max-attempts=2",
					"retry.instances.leaf.backoff.type=none" })
	class WithPropagation {

		@LocalServerPort
		private int port;

		@Autowired
		private HopsServletApplication.Leaf leaf;

		@BeforeEach
		void resetCalls() {
			this.leaf.calls().set(0);
		}

		@Test
		void anExceptionOfACallThatGaveUpIsMarkedThroughTheErrorDispatch() throws Exception {
			HttpResponse<String> response = get(this.port, "/exhausted");
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
			assertThat(this.leaf.calls()).hasValue(2);
		}

		@Test
		void aServiceUnavailableAnswerAfterACallThatGaveUpIsMarked() throws Exception {
			HttpResponse<String> response = get(this.port, "/exhausted-503");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.body()).isEqualTo("leaf down");
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
		}

		@Test
		void aSuccessIsNeverMarked() throws Exception {
			HttpResponse<String> response = get(this.port, "/exhausted-200");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
		}

		@Test
		void anErrorAfterACallThatSucceededOnRetryIsNotMarked() throws Exception {
			HttpResponse<String> response = get(this.port, "/recovered-503");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.body()).isEqualTo("recovered");
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
		}

		@Test
		void aFailureTheInstanceDoesNotRetryIsNotMarked() throws Exception {
			HttpResponse<String> response = get(this.port, "/not-retryable");
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
			assertThat(this.leaf.calls()).hasValue(1);
		}

		@Test
		void aCompletableFutureThatGaveUpIsMarkedThroughTheAsyncDispatch() throws Exception {
			HttpResponse<String> response = get(this.port, "/async");
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
			assertThat(this.leaf.calls()).hasValue(2);
		}

		@Test
		void aMonoThatGaveUpIsMarked() throws Exception {
			HttpResponse<String> response = get(this.port, "/mono");
			assertThat(response.statusCode()).isEqualTo(500);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).hasValue("leaf");
			assertThat(this.leaf.calls()).hasValue(2);
		}

		@Test
		void aRequestRunsUnderTheDeadlineItsCallerSent() throws Exception {
			// Virtual time: the deadline's clock does not move while the request runs.
			assertThat(get(this.port, "/deadline", "X-Request-Timeout", "1500").body()).isEqualTo("1500");
			assertThat(get(this.port, "/deadline").body()).isEqualTo("none");
		}

		@Test
		void aMalformedOrNegativeDeadlineIsIgnoredAndAHugeOneClamped() throws Exception {
			for (String malformed : new String[] { "soon", "-5", "1.5", "", "12 ms" }) {
				HttpResponse<String> response = get(this.port, "/deadline", "X-Request-Timeout", malformed);
				assertThat(response.statusCode()).as(malformed).isEqualTo(200);
				assertThat(response.body()).as(malformed).isEqualTo("none");
			}
			assertThat(get(this.port, "/deadline", "X-Request-Timeout", "99999999999999999999999").body())
				.isEqualTo("3600000");
			assertThat(get(this.port, "/deadline", "X-Request-Timeout", "3600001").body()).isEqualTo("3600000");
			assertThat(get(this.port, "/deadline", "X-Request-Timeout", "0").body()).isEqualTo("0");
		}

	}

	@Nested
	@SpringBootTest(classes = HopsServletApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "server.address=127.0.0.1", "retry.instances.leaf.max-attempts=2",
					"retry.instances.leaf.backoff.type=none", "retry.http.propagation.enabled=false" })
	class WithoutPropagation {

		@LocalServerPort
		private int port;

		@Test
		void nothingIsMarkedAndNoDeadlineIsRead() throws Exception {
			HttpResponse<String> response = get(this.port, "/exhausted-503");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("X-Retry-Exhausted")).isEmpty();
			assertThat(get(this.port, "/deadline", "X-Request-Timeout", "1500").body()).isEqualTo("none");
		}

	}

}
