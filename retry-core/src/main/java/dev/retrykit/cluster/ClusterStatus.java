package dev.retrykit.cluster;

/**
 * What a replica sees of the engine that shares its retry state, as the actuator shows it.
 *
 * @param engine the engine's name, e.g. {@code hazelcast}
 * @param members the members of the engine's cluster when last seen, or 0 if never reached
 * @param reachable whether the engine answered the last operation in time
 * @param fallbacks how many operations used local state because the engine was unreachable or slow
 * @param undecodableEntries how many stored contexts could not be decoded and were treated as absent
 * @param withheldAttributes how many context attributes stayed behind: of a class that is not allowed,
 * not serializable after all, or not decodable on this replica
 * @param droppedSignals how many circuit messages were dropped: malformed, oversized, for a circuit this
 * replica does not share, or a stored state that is not one retrykit writes
 * @param pendingWriteBacks how many keys changed on local state during a fallback wait to be written back
 * @param droppedWriteBacks how many such changes could not be kept for writing back (over the capacity,
 * or evicted locally first)
 */
public record ClusterStatus(String engine, int members, boolean reachable, long fallbacks, long undecodableEntries,
		long withheldAttributes, long droppedSignals, int pendingWriteBacks, long droppedWriteBacks) {
}
