package dev.retrykit.spring.boot.health;

import dev.retrykit.spring.boot.actuate.endpoint.RetriesEndpoint;
import dev.retrykit.spring.boot.actuate.endpoint.RetryInstanceDescriptor;
import dev.retrykit.spring.boot.actuate.endpoint.TestRetryRegistries;
import java.time.Duration;
import java.util.Map;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

class RetriesHealthIndicatorTests {

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = TestRetryRegistries.create(this.time);

	private final RetriesHealthIndicator indicator = new RetriesHealthIndicator(this.registry, false);

	private final RetriesHealthIndicator downWhenOpen = new RetriesHealthIndicator(this.registry, true);

	@Test
	void isUpWithoutDetailsWhileEveryCircuitIsClosed() {
		Health health = this.indicator.health();

		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).isEmpty();
		assertThat(this.downWhenOpen.health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	void staysUpAndReportsAnOpenCircuitWithItsRemainingTime() {
		TestRetryRegistries.openPaymentsCircuit(this.registry);
		this.time.advance(Duration.ofSeconds(5));

		Health health = this.indicator.health();

		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsExactly(
				Map.entry("payments", Map.of("state", "OPEN", "remainingOpen", "25s")));
	}

	@Test
	void isDownWhileACircuitIsOpenWhenAskedTo() {
		TestRetryRegistries.openPaymentsCircuit(this.registry);

		Health health = this.downWhenOpen.health();

		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsOnlyKeys("payments");
	}

	@Test
	void reportsAHalfOpenCircuitButStaysUpEvenWhenAskedToGoDown() {
		TestRetryRegistries.openPaymentsCircuit(this.registry);
		this.time.advance(Duration.ofSeconds(30));

		Health health = this.downWhenOpen.health();

		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsExactly(Map.entry("payments", Map.of("state", "HALF_OPEN")));
	}

	@Test
	void isUpAgainOnceTheCircuitCloses() {
		TestRetryRegistries.openPaymentsCircuit(this.registry);
		this.time.advance(Duration.ofSeconds(30));
		this.registry.template("payments").execute((context) -> "trial call succeeds");

		Health health = this.downWhenOpen.health();

		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).isEmpty();
	}

	@Test
	void reportsACircuitOpenedByHandAsForcedOpen() {
		this.registry.template("payments").getCircuitBreaker().forceOpen();
		this.time.advance(Duration.ofHours(1));

		assertThat(this.indicator.health().getDetails()).containsExactly(
				Map.entry("payments", Map.of("state", "OPEN", "forcedOpen", true)));
		assertThat(this.downWhenOpen.health().getStatus()).isEqualTo(Status.DOWN);
	}

	@Test
	void reportsAnOpenCircuitAsTheEndpointDoes() {
		RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.NEVER, this.time);
		TestRetryRegistries.openPaymentsCircuit(this.registry);
		this.time.advance(Duration.ofSeconds(5));

		RetryInstanceDescriptor.Circuit circuit = endpoint.retry("payments").circuit();

		assertThat(this.indicator.health().getDetails()).containsExactly(
				Map.entry("payments", Map.of("state", circuit.state(), "remainingOpen", circuit.remainingOpen())));

		this.registry.template("payments").getCircuitBreaker().forceOpen();

		assertThat(endpoint.retry("payments").circuit()).extracting(RetryInstanceDescriptor.Circuit::forcedOpen,
				RetryInstanceDescriptor.Circuit::remainingOpen).containsExactly(true, null);
		assertThat(this.indicator.health().getDetails()).containsExactly(
				Map.entry("payments", Map.of("state", "OPEN", "forcedOpen", true)));
	}

}
