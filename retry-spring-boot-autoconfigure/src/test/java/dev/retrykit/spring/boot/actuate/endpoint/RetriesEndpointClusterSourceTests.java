package dev.retrykit.spring.boot.actuate.endpoint;

import java.io.IOException;
import java.time.Duration;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryState;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.cluster.RetryCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.Show;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the endpoint's reads of shared state came from: the context cache, a cluster-scoped budget and circuit
 * carry {@code "source": "cluster"} while the engine answers and {@code "source": "local"} when it did not,
 * and the listing's {@code cluster} says how stale the replica's view is meanwhile ({@code staleFor}).
 * Instances without shared state carry no {@code source}.
 */
class RetriesEndpointClusterSourceTests {

	private final VirtualTime time = new VirtualTime();

	private final SwitchableClusterEngine engine = new SwitchableClusterEngine();

	private final RetryCluster cluster = RetryCluster.builder(this.engine).timeout(Duration.ofMillis(200))
		.timeSource(this.time).clusterBudget("shop").clusterCircuit("inventory", 1).build();

	private final RetryRegistry registry = this.cluster.bind(RetryRegistry.builder().virtualTime(this.time))
		.instance("payments", null, (config) -> config.maxAttempts(3).backoff(BackoffPolicy.none()).stateful(true))
		.instance("inventory", null, (config) -> config.maxAttempts(3).backoff(BackoffPolicy.none())
			.budget(RetryBudgetConfig.ofDefaults(), "shop").circuitBreaker(CircuitBreakerConfig.builder().build()))
		.instance("local", null, (config) -> config.maxAttempts(3).backoff(BackoffPolicy.none())
			.budget(RetryBudgetConfig.ofDefaults(), "own").circuitBreaker(CircuitBreakerConfig.builder().build()))
		.build();

	private final RetriesEndpoint endpoint = new RetriesEndpoint(this.registry, Show.ALWAYS, this.time, this.cluster);

	private final JsonMapper json = JsonMapper.builder().build();

	RetriesEndpointClusterSourceTests() {
		this.cluster.attach(this.registry);
		this.cluster.synchronise();
		failPayment("order-1");
	}

	@AfterEach
	void close() {
		this.cluster.close();
	}

	private void failPayment(String order) {
		try {
			this.registry.template("payments").execute((context) -> {
				throw new IOException("declined");
			}, RetryState.of(order));
		}
		catch (IOException expected) {
			// Rethrown so that the caller can roll back; the context stays cached.
		}
	}

	@Test
	void whileTheEngineAnswersSharedStateComesFromTheCluster() {
		RetryInstanceDescriptor payments = this.endpoint.retry("payments", true);
		assertThat(payments.contextCache().source()).isEqualTo("cluster");
		assertThat(payments.contextCache().size()).isEqualTo(1);
		RetriesDescriptor all = this.endpoint.retries(true);
		RetryInstanceDescriptor inventory = all.instances().get("inventory");
		assertThat(inventory.budget().source()).isEqualTo("cluster");
		assertThat(inventory.circuit().source()).isEqualTo("cluster");
		assertThat(all.cluster().staleFor()).isNull();
	}

	@Test
	void whenTheEngineDidNotAnswerTheReadsSayTheyAreLocalAndTheListingHowStale() {
		this.engine.down = true;
		this.time.advance(Duration.ofMillis(1200));
		RetryInstanceDescriptor payments = this.endpoint.retry("payments", true);
		// The engine was marked unreachable by this very read: the shared context is not in the local cache.
		assertThat(payments.contextCache().source()).isEqualTo("local");
		assertThat(payments.contextCache().size()).isZero();
		RetriesDescriptor all = this.endpoint.retries(true);
		assertThat(all.instances().get("inventory").budget().source()).isEqualTo("local");
		assertThat(all.instances().get("inventory").circuit().source()).isEqualTo("local");
		assertThat(all.cluster().reachable()).isFalse();
		assertThat(all.cluster().staleFor()).isEqualTo("1.2s");
		String listing = this.json.writeValueAsString(all);
		assertThat(listing).contains("\"source\":\"local\"").contains("\"staleFor\":\"1.2s\"");

		this.engine.down = false;
		this.cluster.synchronise();
		assertThat(this.endpoint.retry("payments", true).contextCache()).satisfies((cache) -> {
			assertThat(cache.source()).isEqualTo("cluster");
			assertThat(cache.size()).isEqualTo(1);
		});
	}

	@Test
	void instancesWithoutSharedStateCarryNoSource() throws Exception {
		RetryInstanceDescriptor local = this.endpoint.retries(true).instances().get("local");
		assertThat(local.budget().scope()).isNull();
		assertThat(local.budget().source()).isNull();
		assertThat(local.circuit().source()).isNull();
		assertThat(this.json.writeValueAsString(local)).doesNotContain("\"source\"");
	}

}
