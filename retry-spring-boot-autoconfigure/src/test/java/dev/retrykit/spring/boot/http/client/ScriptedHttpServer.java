package dev.retrykit.spring.boot.http.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real HTTP server on 127.0.0.1 for the HTTP client tests: it answers each request with the next scripted answer
 * (a status with headers, or a dropped connection), then with the fallback answer, and records every request.
 * A test class registers one for all its tests ({@link #forEachTest()}): started with the class, reset before each
 * test, stopped after the last.
 */
final class ScriptedHttpServer implements AutoCloseable, BeforeEachCallback, AfterAllCallback {

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(8);

	private final Queue<Answer> script = new ConcurrentLinkedQueue<>();

	private volatile Answer fallback = Answer.status(200, "ok");

	private final List<Received> received = new CopyOnWriteArrayList<>();

	/** Holds the answers that hang, until the next reset or the close. */
	private volatile java.util.concurrent.CountDownLatch hanging = new java.util.concurrent.CountDownLatch(1);

	/** Holds the answers scripted as held, until {@link #release()}. */
	private volatile java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);

	ScriptedHttpServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
		this.server.createContext("/", this::handle);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	/**
	 * {@return a started server for a test class's {@code @RegisterExtension} static field}: reset before each
	 * test, closed after the class's last
	 * @throws UncheckedIOException if it cannot listen on 127.0.0.1
	 */
	static ScriptedHttpServer forEachTest() {
		try {
			return new ScriptedHttpServer();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The scripted server could not listen on 127.0.0.1", ex);
		}
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		reset();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		close();
	}

	/** {@return the port it listens on, on 127.0.0.1} */
	int port() {
		return this.server.getAddress().getPort();
	}

	/** {@return the base URL through 127.0.0.1} */
	String url() {
		return "http://127.0.0.1:" + port();
	}

	ScriptedHttpServer then(Answer... answers) {
		this.script.addAll(List.of(answers));
		return this;
	}

	ScriptedHttpServer always(Answer answer) {
		this.fallback = answer;
		return this;
	}

	List<Received> received() {
		return List.copyOf(this.received);
	}

	/** {@return the value of a header in each request received, in order ("-" when absent)} */
	List<String> header(String name) {
		return this.received.stream().map(request -> {
			String value = request.headers().get(name.toLowerCase());
			return (value != null) ? value : "-";
		}).toList();
	}

	/** Lets every held answer go out now; later held answers wait for the next release. */
	void release() {
		java.util.concurrent.CountDownLatch now = this.held;
		this.held = new java.util.concurrent.CountDownLatch(1);
		now.countDown();
	}

	void reset() {
		release();
		this.hanging.countDown();
		this.hanging = new java.util.concurrent.CountDownLatch(1);
		this.script.clear();
		this.received.clear();
		this.fallback = Answer.status(200, "ok");
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange; InputStream in = exchange.getRequestBody()) {
			String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			Map<String, String> headers = new java.util.HashMap<>();
			exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(), values.get(0)));
			// The release a held answer waits for is taken before the request is seen as received: a test that
			// releases once it sees the request releases this one, never only the next.
			java.util.concurrent.CountDownLatch release = this.held;
			this.received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers, body));
			Answer answer = this.script.poll();
			if (answer == null) {
				answer = this.fallback;
			}
			if (answer.status() == Answer.HANGS) {
				try {
					this.hanging.await(30, java.util.concurrent.TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				throw new IOException("hung on purpose");
			}
			if (answer.held()) {
				try {
					release.await(30, java.util.concurrent.TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			if (answer.dropped()) {
				// No status line: the client reads an end of stream where the response should be.
				throw new IOException("dropped on purpose");
			}
			answer.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
			byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "text/plain");
			exchange.sendResponseHeaders(answer.status(), (bytes.length == 0) ? -1 : bytes.length);
			if (bytes.length > 0) {
				try (OutputStream out = exchange.getResponseBody()) {
					out.write(bytes);
				}
			}
		}
	}

	@Override
	public void close() {
		this.hanging.countDown();
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	/** A scripted answer. */
	record Answer(int status, Map<String, String> headers, String body, boolean dropped, boolean held) {

		Answer(int status, Map<String, String> headers, String body, boolean dropped) {
			this(status, headers, body, dropped, false);
		}

		/** The status of an answer that never comes. */
		static final int HANGS = -1;

		/** No answer: the request waits until the server is reset or closed. */
		static Answer hang() {
			return new Answer(HANGS, Map.of(), "", false);
		}

		/** This answer, sent only once the server is released ({@link ScriptedHttpServer#release()}). */
		static Answer held(int status, String body) {
			return new Answer(status, Map.of(), body, false, true);
		}

		static Answer status(int status) {
			return new Answer(status, Map.of(), "status " + status, false);
		}

		static Answer status(int status, String body) {
			return new Answer(status, Map.of(), body, false);
		}

		static Answer retryAfter(int status, String retryAfter) {
			return new Answer(status, Map.of("Retry-After", retryAfter), "later", false);
		}

		/** An answer whose service says it already retried and gave up ({@code X-Retry-Exhausted}). */
		static Answer exhausted(int status, String instance) {
			return new Answer(status, Map.of("X-Retry-Exhausted", instance), "gave up", false);
		}

		/** The connection is closed before a response is written. */
		static Answer drop() {
			return new Answer(0, Map.of(), "", true);
		}

	}

	/** A request as received. */
	record Received(String method, String path, Map<String, String> headers, String body) {
	}

}
