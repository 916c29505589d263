package dev.retrykit.spring.boot.actuate.endpoint;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.hedging.HedgingConfig;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Show;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code hedging} object of an instance: current delay, settings and counts; absent when it does not hedge. */
class RetriesEndpointHedgingTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("search", null, config -> config.maxAttempts(2).hedging(HedgingConfig.builder().build()))
		.instance("fixed", null, config -> config.maxAttempts(2)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()))
		.instance("plain", null, config -> config.maxAttempts(2))
		.build();

	private final RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.NEVER, this.time);

	@Test
	void showsTheCurrentDelayTheSettingsAndTheCounts() {
		CompletableFuture<String> first = new CompletableFuture<>();
		CompletableFuture<String> second = new CompletableFuture<>();
		CompletableFuture<?>[] copies = { first, second };
		int[] calls = { 0 };
		this.registry.template("fixed").executeAsync(() -> (CompletableFuture<String>) copies[calls[0]++]);
		this.time.advance(Duration.ofMillis(10));
		second.complete("second");

		assertThat(this.endpoint.retry("fixed").hedging())
			.isEqualTo(new RetryInstanceDescriptor.Hedging("10ms", false, null, 1, 1));
		assertThat(this.endpoint.retry("search").hedging())
			.isEqualTo(new RetryInstanceDescriptor.Hedging("1s", true, 0.95, 0, 0));
		assertThat(this.endpoint.retries().instances().get("plain").hedging()).isNull();
	}

	@Test
	void theConfigShowsTheHedgingPolicy() {
		assertThat(RetryConfig.builder().hedging(HedgingConfig.builder().build()).build().toString())
			.contains("hedging=HedgingConfig{delay=adaptive, quantile=0.95, minDelay=1ms, maxDelay=1s, maxExtraLoad=0.1}");
	}

}
