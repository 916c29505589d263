package dev.retrykit.spring.boot.metrics;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.hedging.HedgingConfig;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hedging meters ({@code retry.hedging.delay}, {@code retry.hedges}): present for the instances that hedge
 * only, the gauge reading the delay they use now; a live change that turns hedging on registers them.
 */
class RetryMetricsBinderHedgingTests {

	private final VirtualTime time = new VirtualTime();

	// A field, so that the registry stays strongly reachable: meters hold their state objects weakly.
	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("lookup", null, (config) -> config.maxAttempts(2)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(20)).build()))
		.instance("search", null, (config) -> config.maxAttempts(2).hedging(HedgingConfig.builder().adaptive()
			.quantile(0.95).minDelay(Duration.ofMillis(1)).maxDelay(Duration.ofSeconds(1)).build()))
		.instance("inventory", null, (config) -> config.maxAttempts(3))
		.build();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	RetryMetricsBinderHedgingTests() {
		new RetryMetricsBinder(this.registry).bindTo(this.meters);
	}

	@Test
	void publishesTheFixedDelayOfAnInstanceThatHedges() {
		TimeGauge delay = this.meters.get("retry.hedging.delay").tag("name", "lookup").timeGauge();

		assertThat(delay.value(TimeUnit.MILLISECONDS)).isEqualTo(20.0);
		assertThat(delay.baseTimeUnit()).isEqualTo(TimeUnit.SECONDS);
		assertThat(delay.value()).isEqualTo(0.02);
	}

	@Test
	void bindsNoHedgingMeterForAnInstanceThatDoesNotHedge() {
		assertThat(this.meters.find("retry.hedging.delay").tag("name", "inventory").meters()).isEmpty();
		assertThat(this.meters.find("retry.hedges").tag("name", "inventory").meters()).isEmpty();
		this.registry.template("late");
		assertThat(this.meters.find("retry.hedging.delay").tag("name", "late").meters()).isEmpty();
		assertThat(this.meters.find("retry.hedges").tag("name", "late").meters()).isEmpty();
		assertThat(this.meters.find("retry.hedges").tag("name", "search").meters()).hasSize(4);
	}

	@Test
	void followsTheAdaptiveDelayFromMaxDelayToTheQuantileOfTheCallsLatency() {
		TimeGauge delay = this.meters.get("retry.hedging.delay").tag("name", "search").timeGauge();
		// Until the instance has seen enough calls, it hedges after max-delay.
		assertThat(delay.value(TimeUnit.MILLISECONDS)).isEqualTo(1000.0);

		RetryTemplate search = this.registry.template("search");
		for (int call = 0; call < 100; call++) {
			CompletableFuture<String> answer = new CompletableFuture<>();
			CompletableFuture<String> result = search.executeAsync(() -> answer);
			this.time.advance(Duration.ofMillis(5));
			answer.complete("found");
			assertThat(result).isCompletedWithValue("found");
		}

		assertThat(delay.value(TimeUnit.MILLISECONDS)).isEqualTo(5.0);
		assertThat(search.getMetrics().getHedgesStarted()).isZero();
	}

	@Test
	void aReplacementThatTurnsHedgingOnOrOffAddsOrRemovesTheMeters() {
		RetryTemplate inventory = this.registry.template("inventory");
		this.registry.replace("inventory", RetryConfig.builder(inventory.getConfig())
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(50)).build()).build());
		assertThat(this.meters.get("retry.hedging.delay").tag("name", "inventory").timeGauge()
			.value(TimeUnit.MILLISECONDS)).isEqualTo(50.0);
		assertThat(this.meters.find("retry.hedges").tag("name", "inventory").meters()).extracting(
				(meter) -> meter.getId().getTag("result")).containsExactlyInAnyOrder("won", "lost", "cancelled", "refused");

		this.registry.replace("inventory", RetryConfig.builder(inventory.getConfig())
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(50)).enabled(false).build()).build());
		assertThat(this.meters.find("retry.hedging.delay").tag("name", "inventory").meters()).isEmpty();
		assertThat(this.meters.find("retry.hedges").tag("name", "inventory").meters()).isEmpty();
	}

	@Test
	void aReplacementThatChangesTheDelayIsReadByTheGaugeAlreadyBound() {
		RetryTemplate lookup = this.registry.template("lookup");
		TimeGauge delay = this.meters.get("retry.hedging.delay").tag("name", "lookup").timeGauge();

		this.registry.replace("lookup", RetryConfig.builder(lookup.getConfig())
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(80)).build()).build());

		assertThat(this.meters.find("retry.hedging.delay").tag("name", "lookup").meters()).containsExactly(delay);
		assertThat(delay.value(TimeUnit.MILLISECONDS)).isEqualTo(80.0);
	}

}
