package dev.retrykit.spring.boot.health;

import dev.retrykit.spring.boot.actuate.endpoint.CircuitSnapshot;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import dev.retrykit.RetryRegistry;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.cluster.ClusterStatus;
import dev.retrykit.cluster.RetryCluster;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code retries} health contributor: reports every circuit breaker that is not closed, by
 * instance name, with its state and, while open, how long until it lets trial calls through
 * ({@code remainingOpen}) or that it was opened by hand ({@code forcedOpen}).
 *
 * <p>By default the status stays {@code UP} even with open circuits: a circuit breaker already
 * protects the downstream, and taking the application out of service for one failing dependency
 * would turn a partial outage into a full one. With {@code downWhenOpen} an {@code OPEN} circuit
 * makes the status {@code DOWN}. A {@code HALF_OPEN} circuit never does: it is recovering through
 * trial calls, and an application taken out of the load balancer would receive none, so the circuit
 * could never close.
 *
 * <p>Thread-safe. Circuits are read as the {@code retries} endpoint reads them ({@link CircuitSnapshot}), so
 * the two agree; reading a circuit applies a due timeout (open to half-open).
 */
public class RetriesHealthIndicator implements HealthIndicator {

	private final RetryRegistry registry;

	private final boolean downWhenOpen;

	private final @Nullable RetryCluster cluster;

	/**
	 * @param registry the registry whose circuits are reported
	 * @param downWhenOpen whether an open circuit makes the status {@code DOWN} (else it stays {@code UP})
	 */
	public RetriesHealthIndicator(RetryRegistry registry, boolean downWhenOpen) {
		this(registry, downWhenOpen, null);
	}

	/**
	 * @param registry the registry whose circuits are reported
	 * @param downWhenOpen whether an open circuit makes the status {@code DOWN} (else it stays {@code UP})
	 * @param cluster the cluster through which the replicas share state, or {@code null}; its engine's
	 * reach is shown under the {@code cluster} detail ({@code engine}, {@code reachable}, {@code members},
	 * {@code fallbacks}, and {@code staleFor} while unreachable) and never changes the status: an unreachable
	 * engine only makes the replica use local state. Read from what the replica knows, without waiting for the
	 * engine (but for the first member count before it was ever reached, at most {@code retry.cluster.timeout})
	 */
	public RetriesHealthIndicator(RetryRegistry registry, boolean downWhenOpen, @Nullable RetryCluster cluster) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.downWhenOpen = downWhenOpen;
		this.cluster = cluster;
	}

	/** @return {@code UP} with the circuits that are not closed, or {@code DOWN} as described above */
	@Override
	public Health health() {
		Map<String, Object> details = new LinkedHashMap<>();
		boolean anyOpen = false;
		for (String name : this.registry.names()) {
			CircuitBreaker breaker = this.registry.find(name).map((template) -> template.getCircuitBreaker()).orElse(null);
			if (breaker == null) {
				continue;
			}
			CircuitSnapshot snapshot = CircuitSnapshot.of(breaker);
			if (snapshot.state() == CircuitState.CLOSED) {
				continue;
			}
			Map<String, Object> circuit = new LinkedHashMap<>();
			circuit.put("state", snapshot.state().name());
			if (snapshot.state() == CircuitState.OPEN) {
				anyOpen = true;
				if (snapshot.forcedOpen()) {
					circuit.put("forcedOpen", true);
				}
				else {
					circuit.put("remainingOpen", snapshot.remainingOpen());
				}
			}
			details.put(name, circuit);
		}
		if (this.cluster != null) {
			ClusterStatus status = this.cluster.status();
			Map<String, Object> reach = new LinkedHashMap<>();
			reach.put("engine", status.engine());
			reach.put("reachable", status.reachable());
			reach.put("members", status.members());
			reach.put("fallbacks", status.fallbacks());
			java.time.Duration unanswered = this.cluster.unansweredFor();
			if (unanswered != null) {
				reach.put("staleFor", dev.retrykit.text.Durations.approximate(unanswered));
			}
			details.put("cluster", reach);
		}
		Health.Builder health = (anyOpen && this.downWhenOpen) ? Health.down() : Health.up();
		return health.withDetails(details).build();
	}

}
