package dev.retrykit.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What the tests of the running sample share: the application on its random port, called over real
 * HTTP on localhost, as a user's curl would call it.
 */
abstract class SampleOverHttp {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return this.http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	CompletableFuture<HttpResponse<String>> getAsync(String path) {
		return this.http.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	HttpResponse<String> post(String path) throws IOException, InterruptedException {
		return this.http.send(request(path).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).timeout(Duration.ofSeconds(30));
	}

}
