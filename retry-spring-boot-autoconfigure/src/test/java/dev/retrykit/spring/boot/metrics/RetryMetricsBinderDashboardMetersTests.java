package dev.retrykit.spring.boot.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.failback.FailbackExecutor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The meters the Grafana dashboard needs beyond the ones it shares with the actuator endpoint. */
class RetryMetricsBinderDashboardMetersTests {

	private final VirtualTime time = new VirtualTime();

	// A field, so that the registry stays strongly reachable: meters hold their state objects weakly.
	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time).contextCacheCapacity(1)
		.defaults(RetryConfig.builder().maxAttempts(2).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))).build())
		.instance("orders", null, (config) -> { })
		.build();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	RetryMetricsBinderDashboardMetersTests() {
		new RetryMetricsBinder(this.registry).bindTo(this.meters);
	}

	private double counter(String meter, String name) {
		return this.meters.get(meter).tag("name", name).functionCounter().count();
	}

	@Test
	void countsContextsEvictedFromAFullCache() {
		RetryTemplate orders = this.registry.template("orders");
		assertThat(counter("retry.context.cache.evictions", "orders")).isZero();
		for (String key : new String[] { "m1", "m2", "m3" }) {
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> orders.execute((context) -> {
				throw new IOException("down");
			}, RetryState.of(key)));
		}
		assertThat(orders.getContextCache().evictions()).isEqualTo(2);
		assertThat(counter("retry.context.cache.evictions", "orders")).isEqualTo(2.0);
	}

	@Test
	void countsExhaustedFailbackTasksAndReadsZeroBeforeTheExecutorExists() {
		assertThat(counter("retry.failback.exhausted", "orders")).isZero();
		assertThat(this.registry.findFailback("orders")).isEmpty();
		FailbackExecutor failback = this.registry.failback("orders");
		failback.submit("event-1", () -> {
			throw new UncheckedIOException(new IOException("down"));
		});
		this.time.advance(Duration.ofSeconds(1));
		assertThat(failback.exhaustedCount()).isEqualTo(1);
		assertThat(counter("retry.failback.exhausted", "orders")).isEqualTo(1.0);
	}

	@Test
	void registersBothForInstancesCreatedAtRunTime() {
		this.registry.template("late");
		assertThat(this.meters.find("retry.context.cache.evictions").tag("name", "late").functionCounter()).isNotNull();
		assertThat(this.meters.find("retry.failback.exhausted").tag("name", "late").functionCounter()).isNotNull();
	}

}
