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

	private volatile @Nullable RestClient inventoryClient;

	Downstream(Environment environment, RestClient.Builder builder) {
		this.environment = environment;
		this.builder = builder;
	}

	/** @return a client whose base URL is the downstream's, through {@code localhost} */
	public RestClient client() {
		RestClient current = this.client;
		if (current == null) {
			current = build("localhost");
			this.client = current;
		}
		return current;
	}

	/**
	 * @return a client of the downstream's inventory API, through {@code 127.0.0.1}: a host of its own, which
	 * {@code retry.instances.inventory.http.hosts} claims, as a real inventory service would have
	 */
	public RestClient inventoryClient() {
		RestClient current = this.inventoryClient;
		if (current == null) {
			current = build("127.0.0.1");
			this.inventoryClient = current;
		}
		return current;
	}

	private RestClient build(String host) {
		String port = this.environment.getProperty("local.server.port",
				this.environment.getProperty("server.port", "8080"));
		JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
				HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build());
		requests.setReadTimeout(Duration.ofSeconds(2));
		// A clone: each client gets the builder's customizers (retrykit's interceptor among them) and its own base URL.
		return this.builder.clone().baseUrl("http://" + host + ":" + port + "/downstream").requestFactory(requests).build();
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
