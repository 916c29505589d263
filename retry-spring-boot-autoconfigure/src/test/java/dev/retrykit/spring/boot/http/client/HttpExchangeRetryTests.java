package dev.retrykit.spring.boot.http.client;


import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpClientAutoConfiguration;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientAdapter;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.PostExchange;
import org.springframework.web.service.invoker.HttpServiceProxyFactory;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @HttpExchange} interfaces: on a RestClient built from Boot's builder, and in an HTTP service group. */
class HttpExchangeRetryTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				HttpServiceClientPropertiesAutoConfiguration.class, HttpServiceClientAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new);

	@Test
	void anHttpExchangeInterfaceOnABootBuiltRestClientShouldBeRetried() {
		server.then(Answer.status(503), Answer.status(200, "12"));
		this.runner.withPropertyValues("retry.instances.inventory.http.hosts=127.0.0.1").run(context -> {
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(server.url()).build();
			StockApi api = HttpServiceProxyFactory.builderFor(RestClientAdapter.create(client))
				.build()
				.createClient(StockApi.class);
			assertThat(api.stock("sku-1")).isEqualTo("12");
			assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2");
			server.then(Answer.status(503));
			assertThatThrownBy(() -> api.order("order")).isInstanceOf(HttpServerErrorException.class);
			assertThat(server.received()).hasSize(3);
		});
	}

	@Test
	void aServiceGroupClaimedByAnInstanceShouldBeRetriedWhateverItsHost() {
		server.then(Answer.status(503), Answer.status(503), Answer.status(200, "12"));
		this.runner.withUserConfiguration(InventoryGroup.class)
			.withPropertyValues("spring.http.serviceclient.inventory.base-url=http://localhost:" + server.port(),
					"retry.instances.inventory.http.service-groups=inventory")
			.run(context -> {
				assertThat(context.getBean(StockApi.class).stock("sku-1")).isEqualTo("12");
				assertThat(server.header("X-Retry-Attempt")).containsExactly("-", "2", "3");
				RetryTemplate inventory = context.getBean("inventoryRetryTemplate", RetryTemplate.class);
				assertThat(inventory.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
			});
	}

	@Test
	void theGroupsInstanceShouldWinOverTheHostsInstance() {
		server.then(Answer.status(503), Answer.status(200, "12"));
		this.runner.withUserConfiguration(InventoryGroup.class)
			.withPropertyValues("spring.http.serviceclient.inventory.base-url=" + server.url(),
					"retry.instances.inventory.http.service-groups=inventory",
					"retry.instances.everything-local.http.hosts=127.0.0.1")
			.run(context -> {
				assertThat(context.getBean(StockApi.class).stock("sku-1")).isEqualTo("12");
				assertThat(context.getBean("inventoryRetryTemplate", RetryTemplate.class)
					.getMetrics()
					.getSuccessfulCallsWithRetry()).isEqualTo(1);
				assertThat(context.getBean("everything-localRetryTemplate", RetryTemplate.class)
					.getMetrics()
					.getSuccessfulCallsWithRetry()).isZero();
			});
	}

	/** The downstream's API. */
	interface StockApi {

		@GetExchange("/stock/{sku}")
		String stock(@PathVariable String sku);

		@PostExchange("/orders")
		String order(@RequestBody String order);

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "inventory", types = StockApi.class)
	static class InventoryGroup {

	}

}
