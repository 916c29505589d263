package dev.retrykit.spring.boot.http.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpClientAutoConfiguration;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A blocking client's hedged call whose two copies both get an answer: the copy that lost closes its response, so its
 * pooled connection goes back to Apache HttpClient 5's pool (read through the pool's statistics). A real server on
 * 127.0.0.1 holds both answers until both copies are on the wire.
 */
class BlockingHedgePoolTests {

	private static final int CALLS = 20;

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean("copies", ExecutorService.class, Executors::newCachedThreadPool,
				definition -> definition.setDestroyMethodName("shutdownNow"))
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1",
				"retry.instances.downstream.max-attempts=2", "retry.instances.downstream.hedging.enabled=true",
				"retry.instances.downstream.hedging.delay=50ms", "retry.instances.downstream.hedging.executor=copies",
				// Every call may hedge once: the default bound (a tenth of the calls) would refuse most of these hedges.
				"retry.instances.downstream.hedging.max-extra-load=1");

	@Test
	void theLosingCopysResponseShouldBeClosed() {
		PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
			.setMaxConnTotal(4)
			.setMaxConnPerRoute(4)
			.build();
		ExecutorService callers = Executors.newSingleThreadExecutor();
		try {
			this.runner.run(context -> {
				VirtualTime time = context.getBean(VirtualTime.class);
				try (CloseableHttpClient httpClient = HttpClients.custom()
					.setConnectionManager(pool)
					.setRetryStrategy(ClaimedHostsHttpRequestRetryStrategy.of(context.getBean(HttpRetryRoutes.class)))
					.build()) {
					RestClient client = context.getBean(RestClient.Builder.class)
						.requestFactory(new HttpComponentsClientHttpRequestFactory(httpClient))
						.baseUrl(server.url())
						.build();
					for (int n = 0; n < CALLS; n++) {
						int i = n;
						int sent = server.received().size();
						server.always(Answer.held(200, "ok"));
						CompletableFuture<String> call = CompletableFuture
							.supplyAsync(() -> client.get().uri("/stock").retrieve().body(String.class), callers);
						await(() -> server.received().size() == sent + 1 && time.pendingTasks() > 0,
								"the first copy on the wire, and the hedge's timer");
						time.advance(Duration.ofMillis(50));
						await(() -> server.received().size() == sent + 2, "the hedge of call " + i + " on the wire");
						server.release();
						assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
						await(() -> pool.getTotalStats().getLeased() == 0, "every connection back in the pool");
					}
					assertThat(server.header("X-Retry-Attempt")).hasSize(2 * CALLS).containsOnly("-", "2");
					assertThat(pool.getTotalStats().getLeased()).isZero();
				}
			});
		}
		finally {
			callers.shutdownNow();
		}
	}

	private static void await(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			LockSupport.parkNanos(1_000_000);
		}
	}

}
