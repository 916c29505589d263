package dev.retrykit.spring.boot.http.client;


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
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Retried calls give every pooled connection back: Apache HttpClient 5's pool, read through its statistics after
 * 1,000 retried calls, through a RestClient and a RestTemplate built from Boot's builders.
 */
class PooledConnectionsTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, RestTemplateAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withPropertyValues("retry.instances.downstream.http.hosts=127.0.0.1");

	@Test
	void aRestClientLeasesNoConnectionAfterAThousandRetriedCalls() {
		PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
			.setMaxConnTotal(4)
			.setMaxConnPerRoute(4)
			.build();
		this.runner.run(context -> {
			try (CloseableHttpClient httpClient = httpClient(pool, context.getBean(HttpRetryRoutes.class))) {
				RestClient client = context.getBean(RestClient.Builder.class)
					.requestFactory(new HttpComponentsClientHttpRequestFactory(httpClient))
					.baseUrl(server.url())
					.build();
				for (int i = 0; i < 1000; i++) {
					server.then(Answer.status(503, "busy"), Answer.status(200, "ok"));
					assertThat(client.get().uri("/stock").retrieve().body(String.class)).isEqualTo("ok");
				}
				server.always(Answer.status(503, "down"));
				for (int i = 0; i < 20; i++) {
					assertThatThrownBy(() -> client.get().uri("/stock").retrieve().body(String.class))
						.isInstanceOf(HttpServerErrorException.class);
				}
				assertThat(server.received()).hasSize(2000 + 60);
				assertThat(pool.getTotalStats().getLeased()).isZero();
			}
		});
	}

	@Test
	void aRestTemplateLeasesNoConnectionAfterAThousandRetriedCalls() {
		PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
			.setMaxConnTotal(4)
			.setMaxConnPerRoute(4)
			.build();
		this.runner.run(context -> {
			try (CloseableHttpClient httpClient = httpClient(pool, context.getBean(HttpRetryRoutes.class))) {
				RestTemplate template = context.getBean(RestTemplateBuilder.class)
					.requestFactory(() -> new HttpComponentsClientHttpRequestFactory(httpClient))
					.rootUri(server.url())
					.build();
				for (int i = 0; i < 1000; i++) {
					server.then(Answer.status(502, "busy"), Answer.status(200, "ok"));
					assertThat(template.getForObject("/stock", String.class)).isEqualTo("ok");
				}
				assertThat(server.header("X-Retry-Attempt")).startsWith("-", "2", "-", "2");
				assertThat(server.received()).hasSize(2000);
				assertThat(pool.getTotalStats().getLeased()).isZero();
			}
		});
	}

	private static CloseableHttpClient httpClient(PoolingHttpClientConnectionManager pool, HttpRetryRoutes routes) {
		return HttpClients.custom()
			.setConnectionManager(pool)
			.setRetryStrategy(ClaimedHostsHttpRequestRetryStrategy.of(routes))
			.build();
	}

}
