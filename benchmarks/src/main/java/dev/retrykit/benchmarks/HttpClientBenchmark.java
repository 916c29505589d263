package dev.retrykit.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import dev.retrykit.RetryTemplate;
import dev.retrykit.spring.boot.http.client.HttpRetryRoute;
import dev.retrykit.spring.boot.http.client.HttpRetryRoutes;
import dev.retrykit.spring.boot.http.client.RetryingClientHttpRequestInterceptor;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * What retrykit's HTTP client interceptor costs on a call that succeeds at once: a RestClient GET to a local
 * server (the JDK's, on 127.0.0.1, answering "ok" at once) through an interceptor whose instance claims the host,
 * against the same client without the interceptor, and against one whose interceptor claims another host (the
 * cost of a call no instance claims: one lookup, and the body buffering Spring does for any intercepted client).
 * The targets: guarded at most 1.1x the plain client, unclaimed at most 1.02x (medians, same run).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
public class HttpClientBenchmark {

	@Benchmark
	public @Nullable String plainRestClient(Clients clients) {
		return clients.plain.get().uri("/stock").retrieve().body(String.class);
	}

	@Benchmark
	public @Nullable String guardedRestClient(Clients clients) {
		return clients.guarded.get().uri("/stock").retrieve().body(String.class);
	}

	@Benchmark
	public @Nullable String unclaimedRestClient(Clients clients) {
		return clients.unclaimed.get().uri("/stock").retrieve().body(String.class);
	}

	/** The server and the three clients, one JDK HttpClient each (so each has its own connection pool). */
	@State(Scope.Benchmark)
	public static class Clients {

		private HttpServer server;

		private ExecutorService executor;

		RestClient plain;

		RestClient guarded;

		RestClient unclaimed;

		@Setup(Level.Trial)
		public void start() throws IOException {
			System.setProperty("sun.net.httpserver.nodelay", "true");
			this.executor = Executors.newFixedThreadPool(4);
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
			byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
			this.server.createContext("/", exchange -> {
				try (exchange) {
					exchange.getRequestBody().readAllBytes();
					exchange.getResponseHeaders().set("Content-Type", "text/plain");
					exchange.sendResponseHeaders(200, ok.length);
					try (OutputStream out = exchange.getResponseBody()) {
						out.write(ok);
					}
				}
			});
			this.server.setExecutor(this.executor);
			this.server.start();
			String url = "http://127.0.0.1:" + this.server.getAddress().getPort();
			HttpRetryRoute route = HttpRetryRoute.of(RetryTemplate.builder().name("downstream").build(), null, Set.of(),
					"X-Retry-Attempt");
			this.plain = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory()).baseUrl(url).build();
			this.guarded = RestClient.builder()
				.requestFactory(new JdkClientHttpRequestFactory())
				.requestInterceptor(RetryingClientHttpRequestInterceptor.of(HttpRetryRoutes.builder().host("127.0.0.1", route).build()))
				.baseUrl(url)
				.build();
			this.unclaimed = RestClient.builder()
				.requestFactory(new JdkClientHttpRequestFactory())
				.requestInterceptor(RetryingClientHttpRequestInterceptor
					.of(HttpRetryRoutes.builder().host("inventory.internal", route).host("*.inventory.svc", route).build()))
				.baseUrl(url)
				.build();
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.server.stop(0);
			this.executor.shutdownNow();
		}

	}

}
