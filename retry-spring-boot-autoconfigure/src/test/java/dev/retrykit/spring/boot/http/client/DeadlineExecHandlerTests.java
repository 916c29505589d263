package dev.retrykit.spring.boot.http.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;
import dev.retrykit.Deadline;
import dev.retrykit.VirtualTime;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A blocking request through a real Apache HttpClient 5 and a real server on 127.0.0.1, whose wait for a pooled
 * connection is played by an execution-chain step that moves a virtual clock on before the request leaves: the
 * time left the request tells the next service, and the wait for its answer, are what is left once the connection
 * is leased, not what was left when the request was made.
 */
class DeadlineExecHandlerTests {

	private final VirtualTime time = new VirtualTime();

	private final List<String> received = new CopyOnWriteArrayList<>();

	private final AtomicReference<Timeout> responseTimeout = new AtomicReference<>();

	private HttpServer server;

	private CloseableHttpClient client;

	@BeforeEach
	void start() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/", exchange -> {
			this.received.add(String.valueOf(exchange.getRequestHeaders().getFirst("X-Request-Timeout")));
			byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		this.server.start();
		// The pool wait: the leased connection comes 400 ms (virtual) after the request was made.
		ExecChainHandler poolWait = (request, scope, chain) -> {
			this.time.advance(Duration.ofMillis(400));
			return chain.proceed(request, scope);
		};
		ExecChainHandler sent = (request, scope, chain) -> {
			this.responseTimeout.set(scope.clientContext.getRequestConfigOrDefault().getResponseTimeout());
			return chain.proceed(request, scope);
		};
		this.client = HttpClients.custom()
			.addExecInterceptorAfter(ChainElement.CONNECT.name(), "pool-wait", poolWait)
			.addExecInterceptorAfter("pool-wait", DeadlineExecHandler.NAME, new DeadlineExecHandler("X-Request-Timeout"))
			.addExecInterceptorAfter(DeadlineExecHandler.NAME, "sent", sent)
			.build();
	}

	@AfterEach
	void stop() throws IOException {
		this.client.close();
		this.server.stop(0);
	}

	private HttpGet request(String deadlineHeader) {
		HttpGet get = new HttpGet("http://127.0.0.1:" + this.server.getAddress().getPort() + "/");
		if (deadlineHeader != null) {
			get.setHeader("X-Request-Timeout", deadlineHeader);
		}
		return get;
	}

	@Test
	void theTimeLeftSentAndWaitedForIsWhatIsLeftOnceTheConnectionIsLeased() throws Exception {
		Deadline deadline = Deadline.after(Duration.ofMillis(1000), this.time);
		String body = deadline.call(() -> this.client.execute(request("1000"), response -> EntityUtils.toString(response.getEntity())));
		assertThat(body).isEqualTo("ok");
		assertThat(this.received).containsExactly("600");
		assertThat(this.responseTimeout.get()).isEqualTo(Timeout.ofMilliseconds(600));
	}

	@Test
	void aRequestWhoseDeadlinePassedWhileItWaitedForAConnectionIsNotSent() {
		Deadline deadline = Deadline.after(Duration.ofMillis(300), this.time);
		assertThatExceptionOfType(PastDeadlineException.class)
			.isThrownBy(() -> deadline.call(() -> this.client.execute(request("300"), response -> "sent")))
			.withMessageContaining("not sent, GET /");
		assertThat(this.received).isEmpty();
	}

	@Test
	void aRequestUnderNoDeadlineIsUntouched() throws Exception {
		String body = this.client.execute(request(null), response -> EntityUtils.toString(response.getEntity()));
		assertThat(body).isEqualTo("ok");
		assertThat(this.received).containsExactly("null");
		assertThat(this.responseTimeout.get()).isNotEqualTo(Timeout.ofMilliseconds(600));
	}

}
