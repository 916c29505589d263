package dev.retrykit.spring.boot.actuate.endpoint;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import org.jspecify.annotations.Nullable;

/**
 * The response of {@code GET /actuator/retries}: every instance created so far, by name, in name order,
 * and, when the replicas share state, the cluster. Immutable.
 *
 * @param instances the instances by name
 * @param cluster the engine shared with the other replicas, or {@code null} (left out) without a cluster
 */
@JsonInclude(Include.NON_NULL)
public record RetriesDescriptor(Map<String, RetryInstanceDescriptor> instances, @Nullable Cluster cluster) {

	/**
	 * @param instances the instances by name; copied, keeping its iteration order
	 * @param cluster the engine shared with the other replicas, or {@code null}
	 */
	public RetriesDescriptor {
		instances = Collections.unmodifiableMap(new LinkedHashMap<>(instances));
	}

	/**
	 * The response of a replica that shares no state.
	 * @param instances the instances by name; copied, keeping its iteration order
	 */
	public RetriesDescriptor(Map<String, RetryInstanceDescriptor> instances) {
		this(instances, null);
	}

	/**
	 * The engine through which the replicas share retry state.
	 *
	 * @param engine its name, e.g. {@code hazelcast}
	 * @param members the members of its cluster as this replica sees them
	 * @param reachable whether it answered the last operation within the timeout
	 * @param fallbacks the operations that used local state because it was unreachable or slow
	 * @param undecodableEntries stored contexts that could not be decoded and were treated as absent
	 * @param withheldAttributes context attributes that stayed on their replica (class not allowed, not
	 * serializable, or not decodable here)
	 * @param droppedSignals circuit messages dropped: malformed, oversized, or for a circuit not shared here
	 * @param pendingWriteBacks keys changed on local state during a fallback, waiting to be written back
	 * @param droppedWriteBacks such changes that could not be kept for writing back
	 * @param staleFor while the engine is unreachable, how long since it last answered (e.g. {@code 1.2s}): the
	 * shared state this replica shows (members, and every part marked {@code "source": "local"}) is at least that
	 * old; {@code null} (left out) while it is reachable
	 */
	@JsonInclude(Include.NON_NULL)
	public record Cluster(String engine, int members, boolean reachable, long fallbacks, long undecodableEntries,
			long withheldAttributes, long droppedSignals, int pendingWriteBacks, long droppedWriteBacks,
			@Nullable String staleFor) {

		/** An engine's view without its staleness. */
		public Cluster(String engine, int members, boolean reachable, long fallbacks, long undecodableEntries,
				long withheldAttributes, long droppedSignals, int pendingWriteBacks, long droppedWriteBacks) {
			this(engine, members, reachable, fallbacks, undecodableEntries, withheldAttributes, droppedSignals,
					pendingWriteBacks, droppedWriteBacks, null);
		}

	}

}
