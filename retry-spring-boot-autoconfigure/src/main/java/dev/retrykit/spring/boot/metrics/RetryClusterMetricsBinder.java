package dev.retrykit.spring.boot.metrics;

import java.util.Objects;
import java.util.function.ToLongFunction;

import dev.retrykit.cluster.ClusterStatus;
import dev.retrykit.cluster.RetryCluster;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the retry cluster's meters: {@code retry.cluster.fallbacks} (a function counter of the
 * operations that used local state because the engine was unreachable or slow) and
 * {@code retry.cluster.members} (a gauge of the engine's members), both tagged with the {@code engine}.
 * They read the cluster's status when scraped: no cost per call. Thread-safe.
 */
public class RetryClusterMetricsBinder implements MeterBinder {

	private final RetryCluster cluster;

	/**
	 * @param cluster the cluster whose status is measured
	 */
	public RetryClusterMetricsBinder(RetryCluster cluster) {
		this.cluster = Objects.requireNonNull(cluster, "cluster must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		String engine = this.cluster.status().engine();
		FunctionCounter.builder("retry.cluster.fallbacks", this.cluster, c -> c.status().fallbacks())
			.description("Operations on the retry cluster's engine that used local state instead")
			.tag("engine", engine)
			.register(registry);
		Gauge.builder("retry.cluster.members", this.cluster, c -> c.status().members())
			.description("Members of the retry cluster's engine as this replica sees them")
			.tag("engine", engine)
			.register(registry);
		dropped(registry, engine, "undecodable_entry", ClusterStatus::undecodableEntries,
				"Stored retry contexts that could not be decoded and were treated as absent");
		dropped(registry, engine, "withheld_attribute", ClusterStatus::withheldAttributes,
				"Retry context attributes that stayed on their replica: class not allowed, not serializable or not decodable");
		dropped(registry, engine, "dropped_signal", ClusterStatus::droppedSignals,
				"Circuit messages dropped: malformed, oversized, or for a circuit not shared here");
		dropped(registry, engine, "lost_write_back", ClusterStatus::droppedWriteBacks,
				"Changes made on local state during a fallback that could not be written back");
		Gauge.builder("retry.cluster.write.backs.pending", this.cluster, c -> c.status().pendingWriteBacks())
			.description("Keys changed on local state during a fallback that wait to be written back to the engine")
			.tag("engine", engine)
			.register(registry);
	}

	private void dropped(MeterRegistry registry, String engine, String reason, ToLongFunction<ClusterStatus> count,
			String description) {
		FunctionCounter.builder("retry.cluster.dropped", this.cluster, c -> count.applyAsLong(c.status()))
			.description(description)
			.tag("engine", engine)
			.tag("reason", reason)
			.register(registry);
	}

}
