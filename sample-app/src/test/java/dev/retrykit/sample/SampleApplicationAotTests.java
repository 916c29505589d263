package dev.retrykit.sample;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the sample from the code that Spring AOT processing generated (the build's {@code process-aot}
 * execution, bound before the tests) with {@code -Dspring.aot.enabled=true}, in its own JVM on a random
 * port of 127.0.0.1, as a native image or an AOT-on-JVM deployment starts it, and drives one retried
 * call through real HTTP.
 */
class SampleApplicationAotTests {

	private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final List<String> output = new ArrayList<>();

	private Process application;

	@AfterEach
	void stop() throws Exception {
		if (this.application != null) {
			this.application.destroy();
			if (!this.application.waitFor(30, TimeUnit.SECONDS)) {
				this.application.destroyForcibly();
			}
		}
	}

	@Test
	void theApplicationStartsFromItsAotGeneratedCodeAndRetries() throws Exception {
		int port = start();
		assertThat(this.output).anyMatch(line -> line.contains("Starting AOT-processed SampleApplication"));
		assertThat(post(port, "/downstream/script/inventory/fail?count=1&status=503").statusCode()).isEqualTo(200);
		HttpResponse<String> stock = get(port, "/shop/stock/SKU-1");
		assertThat(stock.statusCode()).isEqualTo(200);
		assertThat(stock.body()).contains("\"quantity\":42");
		assertThat(get(port, "/actuator/retries/inventory").body()).contains("\"successfulWithRetry\":1");
	}

	private int start() throws Exception {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		// The application's classpath, without the test classes: the generated code defines every bean.
		String classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter(entry -> !entry.endsWith("test-classes"))
			.collect(Collectors.joining(File.pathSeparator));
		this.application = new ProcessBuilder(java.toString(), "-Dspring.aot.enabled=true", "-cp", classpath,
				SampleApplication.class.getName(), "--server.port=0", "--server.address=127.0.0.1",
				"--spring.main.banner-mode=off")
			.redirectErrorStream(true)
			.start();
		CompletableFuture<Integer> port = new CompletableFuture<>();
		Thread reader = new Thread(() -> read(port), "aot-app-output");
		reader.setDaemon(true);
		reader.start();
		return port.get(90, TimeUnit.SECONDS);
	}

	private void read(CompletableFuture<Integer> port) {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(this.application.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = lines.readLine()) != null) {
				synchronized (this.output) {
					this.output.add(line);
				}
				Matcher matcher = PORT.matcher(line);
				if (matcher.find()) {
					port.complete(Integer.parseInt(matcher.group(1)));
				}
			}
			port.completeExceptionally(new IllegalStateException("The application exited before it started:\n"
					+ String.join("\n", this.output)));
		}
		catch (Exception ex) {
			port.completeExceptionally(ex);
		}
	}

	private HttpResponse<String> get(int port, String path) throws Exception {
		return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET());
	}

	private HttpResponse<String> post(int port, String path) throws Exception {
		return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.POST(HttpRequest.BodyPublishers.noBody()));
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		return this.http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
	}

}
