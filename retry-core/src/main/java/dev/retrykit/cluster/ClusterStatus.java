package dev.retrykit.cluster;

/**
 * What a replica sees of the engine that shares its retry state, as the actuator shows it.
 *
 * @param engine the engine's name, e.g. {@code hazelcast}
 * @param members the members of the engine's cluster when last seen, or 0 if never reached
 * @param reachable whether the engine answered the last operation in time
 * @param fallbacks how many operations used local state because the engine was unreachable or slow
 */
public record ClusterStatus(String engine, int members, boolean reachable, long fallbacks) {
}
