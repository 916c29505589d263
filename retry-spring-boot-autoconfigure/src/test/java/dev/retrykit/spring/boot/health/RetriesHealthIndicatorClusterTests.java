package dev.retrykit.spring.boot.health;

import java.time.Duration;
import java.util.Map;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.spring.boot.actuate.endpoint.SwitchableClusterEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's reach in the {@code retries} contributor's details: shown, never taking the application down,
 * with how stale the replica's view is while the engine does not answer; answered without waiting for it.
 */
class RetriesHealthIndicatorClusterTests {

	private final VirtualTime time = new VirtualTime();

	private final SwitchableClusterEngine engine = new SwitchableClusterEngine();

	private final RetryCluster cluster = RetryCluster.builder(this.engine).timeout(Duration.ofSeconds(5))
		.timeSource(this.time).build();

	private final RetryRegistry registry = this.cluster.bind(RetryRegistry.builder().virtualTime(this.time)).build();

	private final RetriesHealthIndicator indicator = new RetriesHealthIndicator(this.registry, true, this.cluster);

	@AfterEach
	void close() {
		this.cluster.close();
	}

	@Test
	void anUnreachableEngineIsShownInTheDetailsAndTheStatusStaysUp() {
		this.cluster.synchronise();
		assertThat(cluster(this.indicator.health())).containsEntry("reachable", true).containsEntry("members", 1)
			.doesNotContainKey("staleFor");

		this.engine.down = true;
		this.time.advance(Duration.ofMillis(2500));
		this.cluster.synchronise();
		long start = System.nanoTime();
		Health health = this.indicator.health();
		// Answered from what the replica knows: no wait for the engine, whose timeout here is 5 s.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(cluster(health)).containsEntry("engine", "switchable").containsEntry("reachable", false)
			.containsEntry("members", 1).containsEntry("staleFor", "2.5s").containsKey("fallbacks");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> cluster(Health health) {
		return (Map<String, Object>) health.getDetails().get("cluster");
	}

}
