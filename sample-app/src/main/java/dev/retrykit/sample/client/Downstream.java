package dev.retrykit.sample.client;

import java.net.http.HttpClient;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * The HTTP client of the flaky downstream, from Boot's {@link RestClient.Builder}, so that each request is
 * observed (a client span, under the retry attempt that makes it). The sample serves the downstream
 * itself, so the base URL uses the port the server actually listens on (random in tests), resolved on
 * first use.
 */
@Component
public class Downstream {

	private final Environment environment;

	private final RestClient.Builder builder;

	private volatile @Nullable RestClient client;

	Downstream(Environment environment, RestClient.Builder builder) {
		this.environment = environment;
		this.builder = builder;
	}

	/** @return a client whose base URL is the downstream's */
	public RestClient client() {
		RestClient current = this.client;
		if (current == null) {
			String port = this.environment.getProperty("local.server.port",
					this.environment.getProperty("server.port", "8080"));
			JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
					HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build());
			requests.setReadTimeout(Duration.ofSeconds(2));
			current = this.builder.baseUrl("http://localhost:" + port + "/downstream")
				.requestFactory(requests).build();
			this.client = current;
		}
		return current;
	}

	/**
	 * @param response a response of the downstream, which always answers with a body
	 * @param type the body's type
	 * @param <T> the body's type
	 * @return the body
	 * @throws IllegalStateException if the response has no body
	 */
	static <T> T body(RestClient.ResponseSpec response, Class<T> type) {
		T body = response.body(type);
		if (body == null) {
			throw new IllegalStateException("The downstream answered without a " + type.getSimpleName());
		}
		return body;
	}

}
