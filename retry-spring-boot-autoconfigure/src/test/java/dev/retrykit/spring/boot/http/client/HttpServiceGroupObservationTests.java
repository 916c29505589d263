package dev.retrykit.spring.boot.http.client;

import java.util.List;

import dev.retrykit.VirtualTime;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryHttpClientAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.observation.RetryObservationAutoConfiguration;
import dev.retrykit.spring.boot.http.client.HttpAttemptObservationTests.ParentRecorder;
import dev.retrykit.spring.boot.http.client.ScriptedHttpServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.WebClientObservationAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.service.ReactiveHttpServiceClientAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.registry.HttpServiceGroup;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call that an instance claims only through {@code http.service-groups} (its host is claimed by none) is observed
 * once per attempt, under its {@code retry.attempt}, as a call claimed by host is: the client's own observation of the
 * whole call is dropped. A real registry with Boot's client instrumentation; a real server on 127.0.0.1.
 */
class HttpServiceGroupObservationTests {

	@RegisterExtension
	static final ScriptedHttpServer server = ScriptedHttpServer.forEachTest();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, RetryAutoConfiguration.class,
				RetryObservationAutoConfiguration.class, RetryHttpClientAutoConfiguration.class,
				HttpServiceClientPropertiesAutoConfiguration.class))
		.withBean(VirtualTime.class, VirtualTime::new)
		.withBean(ParentRecorder.class, ParentRecorder::new)
		.withPropertyValues("retry.instances.inventory.http.service-groups=inventory",
				"retry.instances.inventory.backoff.type=none");

	@Test
	void aRestClientGroupsCallShouldBeObservedOncePerAttempt() {
		this.runner
			.withConfiguration(AutoConfigurations.of(ImperativeHttpClientAutoConfiguration.class,
					RestClientAutoConfiguration.class, RestClientObservationAutoConfiguration.class,
					HttpServiceClientAutoConfiguration.class))
			.withUserConfiguration(BlockingGroup.class)
			.withPropertyValues("spring.http.serviceclient.inventory.base-url=http://localhost:" + server.port())
			.run(context -> {
				assertThat(context.getBean(StockApi.class).stock("a")).isEqualTo("ok");
				server.then(Answer.status(503), Answer.status(200, "12"));
				assertThat(context.getBean(StockApi.class).stock("b")).isEqualTo("12");
				assertThat(clientObservations(context.getBean(ParentRecorder.class))).containsExactly(
						"http.client.requests <- retry.attempt", "http.client.requests <- retry.attempt",
						"http.client.requests <- retry.attempt");
				assertThat(context.getBean(ParentRecorder.class).stopped).filteredOn(line -> line.startsWith("retry.call"))
					.hasSize(2);
			});
	}

	@Test
	void aWebClientGroupsCallShouldBeObservedOncePerAttempt() {
		this.runner
			.withConfiguration(AutoConfigurations.of(ReactiveHttpClientAutoConfiguration.class,
					WebClientAutoConfiguration.class, WebClientObservationAutoConfiguration.class,
					ReactiveHttpServiceClientAutoConfiguration.class))
			.withUserConfiguration(ReactiveGroup.class)
			.withPropertyValues("spring.http.serviceclient.inventory.base-url=http://localhost:" + server.port())
			.run(context -> {
				VirtualTime time = context.getBean(VirtualTime.class);
				ReactiveStockApi api = context.getBean(ReactiveStockApi.class);
				assertThat(VirtualTimeDriver.await(api.stock("a"), time)).isEqualTo("ok");
				server.then(Answer.status(503), Answer.status(200, "12"));
				assertThat(VirtualTimeDriver.await(api.stock("b"), time)).isEqualTo("12");
				assertThat(clientObservations(context.getBean(ParentRecorder.class))).containsExactly(
						"http.client.requests <- retry.attempt", "http.client.requests <- retry.attempt",
						"http.client.requests <- retry.attempt");
				assertThat(context.getBean(ParentRecorder.class).stopped).filteredOn(line -> line.startsWith("retry.call"))
					.hasSize(2);
			});
	}

	private static List<String> clientObservations(ParentRecorder recorder) {
		return recorder.stopped.stream().filter(line -> line.startsWith("http.client.requests")).toList();
	}

	/** The downstream's API, blocking. */
	interface StockApi {

		@GetExchange("/stock/{sku}")
		String stock(@PathVariable String sku);

	}

	/** The downstream's API, reactive. */
	interface ReactiveStockApi {

		@GetExchange("/stock/{sku}")
		Mono<String> stock(@PathVariable String sku);

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "inventory", types = StockApi.class)
	static class BlockingGroup {

	}

	@Configuration(proxyBeanMethods = false)
	@ImportHttpServices(group = "inventory", types = ReactiveStockApi.class,
			clientType = HttpServiceGroup.ClientType.WEB_CLIENT)
	static class ReactiveGroup {

	}

}
