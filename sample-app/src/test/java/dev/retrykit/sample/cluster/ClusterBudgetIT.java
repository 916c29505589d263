package dev.retrykit.sample.cluster;

import java.util.List;

/** {@link ClusterBudgetChecks} on three replicas of the sample's {@code cluster} profile: Hazelcast members on loopback. */
class ClusterBudgetIT extends ClusterBudgetChecks {

	/** The first of the members' ports, free on this machine: never the sample's own 5701-5703. */
	private static final int HAZELCAST_PORT = FreePorts.block(HazelcastMemberConfiguration.PORTS);

	@Override
	List<String> engineArguments() {
		return List.of("--spring.profiles.active=cluster", "--sample.hazelcast.port=" + HAZELCAST_PORT);
	}

}
