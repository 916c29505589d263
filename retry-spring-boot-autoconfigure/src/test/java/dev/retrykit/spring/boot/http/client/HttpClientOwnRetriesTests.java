package dev.retrykit.spring.boot.http.client;

import java.io.IOException;
import java.net.ConnectException;

import dev.retrykit.RetryTemplate;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Apache HttpClient 5 retries by itself (a 429 or 503 once, after a second; an idempotent request's I/O failure once):
 * never a call a retrykit instance runs, whose attempts the instance counts and spaces, and still every other call.
 * A real HttpClient under Boot's RestClient and a real server on 127.0.0.1; the strategy's own answers read directly.
 */
class HttpClientOwnRetriesTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = HttpClientRunners.restClient()
		.withConfiguration(AutoConfigurations.of(HttpServiceClientPropertiesAutoConfiguration.class,
				HttpServiceClientAutoConfiguration.class))
		.withUserConfiguration(BlockingGroup.class)
		.withPropertyValues("retry.instances.inventory.http.service-groups=inventory",
				"retry.instances.inventory.max-attempts=2", "retry.instances.inventory.backoff.type=none",
				"spring.http.serviceclient.inventory.base-url=http://localhost:" + server.port());

	@Test
	void aServiceGroupsCallToAHostNoInstanceClaimsIsRetriedByItsInstanceAlone() {
		this.runner.run(context -> {
			server.always(Answer.status(503, "busy"));
			assertThatThrownBy(() -> context.getBean(StockApi.class).stock("a"))
				.isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
			// The instance's two attempts; HttpClient's own retry would have sent each twice.
			assertThat(server.received()).hasSize(2);
		});
	}

	@Test
	void httpClientKeepsItsOwnRetriesForTheHostsNoInstanceClaims() throws IOException {
		ClaimedHostsHttpRequestRetryStrategy strategy = ClaimedHostsHttpRequestRetryStrategy
			.of(HttpRetryRoutes.builder().host("orders.internal", route()).build());
		HttpClientContext other = contextFor("catalog.internal");
		assertThat(strategy.retryRequest(new BasicHttpResponse(503), 1, other)).isTrue();
		assertThat(strategy.retryRequest(new HttpGet("http://catalog.internal/"), new NoResponse(), 1, other)).isTrue();
		HttpClientContext claimed = contextFor("orders.internal");
		assertThat(strategy.retryRequest(new BasicHttpResponse(503), 1, claimed)).isFalse();
		assertThat(strategy.retryRequest(new HttpGet("http://orders.internal/"), new NoResponse(), 1, claimed)).isFalse();
	}

	private static HttpRetryRoute route() {
		return HttpRetryRoute.of(RetryTemplate.builder().name("orders").build(), null, java.util.Set.of(), "X-Retry-Attempt");
	}

	private static HttpClientContext contextFor(String host) {
		HttpClientContext context = HttpClientContext.create();
		context.setRoute(new HttpRoute(new HttpHost("http", host, 80)));
		return context;
	}

	/** An I/O failure HttpClient's default strategy retries (not a {@link ConnectException}, which it never does). */
	private static final class NoResponse extends IOException {

		private static final long serialVersionUID = 1L;

		NoResponse() {
			super("the server closed the connection without answering");
		}

	}

	/** The downstream's API. */
	interface StockApi {

		@GetExchange("/stock/{sku}")
		String stock(@PathVariable String sku);

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "inventory", types = StockApi.class)
	static class BlockingGroup {

	}

}
