package dev.retrykit.testing.hazelcast;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

/**
 * Embedded Hazelcast members for tests, inside one JVM: TCP-IP join on 127.0.0.1 only over a block of
 * free ports, multicast and auto-detection off, a unique cluster name, phone-home and Jet off, 7
 * partitions and short heartbeat and merge settings, so a cluster starts and loses members quickly.
 */
public final class HazelcastTestCluster implements AutoCloseable {

	/** Held so that the level set on it is kept: the warnings of members terminated on purpose would drown the test output. */
	private static final java.util.logging.Logger HAZELCAST_LOG = java.util.logging.Logger.getLogger("com.hazelcast");

	static {
		HAZELCAST_LOG.setLevel(java.util.logging.Level.OFF);
	}

	/** Ports in the block, so members beyond the first three can join too. */
	private static final int PORTS = 6;

	private final String name = "retrykit-test-" + UUID.randomUUID();

	private final int basePort = freePortBlock();

	private final List<HazelcastInstance> instances = new ArrayList<>();

	/** The Java serialization filter of every member and client, or {@code null} for Hazelcast's default (none). */
	private final JavaSerializationFilterConfig serializationFilter;

	/**
	 * Starts {@code members} members, with no Java serialization filter (Hazelcast's default).
	 * @param members how many
	 */
	public HazelcastTestCluster(int members) {
		this(members, null);
	}

	/**
	 * Starts {@code members} members whose members and clients all have the given Java serialization filter.
	 * @param members how many
	 * @param serializationFilter the filter, or {@code null} for none
	 */
	public HazelcastTestCluster(int members, JavaSerializationFilterConfig serializationFilter) {
		this.serializationFilter = serializationFilter;
		for (int i = 0; i < members; i++) {
			startMember();
		}
	}

	/** @return a new member, joined to the others */
	public HazelcastInstance startMember() {
		Config config = new Config().setClusterName(this.name).setInstanceName(this.name + "-" + this.instances.size());
		config.setProperty("hazelcast.phone.home.enabled", "false");
		config.setProperty("hazelcast.partition.count", "7");
		config.setProperty("hazelcast.logging.type", "jdk");
		config.setProperty("hazelcast.wait.seconds.before.join", "0");
		config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
		config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
		config.setProperty("hazelcast.max.no.heartbeat.seconds", "6");
		config.setProperty("hazelcast.merge.first.run.delay.seconds", "2");
		config.setProperty("hazelcast.merge.next.run.delay.seconds", "2");
		config.setProperty("hazelcast.local.localAddress", "127.0.0.1");
		config.getJetConfig().setEnabled(false);
		NetworkConfig network = config.getNetworkConfig().setPort(this.basePort).setPortAutoIncrement(true)
			.setPortCount(PORTS);
		network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
		JoinConfig join = network.getJoin();
		join.getMulticastConfig().setEnabled(false);
		join.getAutoDetectionConfig().setEnabled(false);
		for (int port = this.basePort; port < this.basePort + PORTS; port++) {
			join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(1).addMember("127.0.0.1:" + port);
		}
		if (this.serializationFilter != null) {
			config.getSerializationConfig().setJavaSerializationFilterConfig(this.serializationFilter);
		}
		HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
		this.instances.add(member);
		return member;
	}

	/** @return a client of the cluster */
	public HazelcastInstance startClient() {
		ClientConfig config = new ClientConfig().setClusterName(this.name);
		config.setProperty("hazelcast.phone.home.enabled", "false");
		config.setProperty("hazelcast.logging.type", "jdk");
		for (int port = this.basePort; port < this.basePort + PORTS; port++) {
			config.getNetworkConfig().addAddress("127.0.0.1:" + port);
		}
		if (this.serializationFilter != null) {
			config.getSerializationConfig().setJavaSerializationFilterConfig(this.serializationFilter);
		}
		HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
		this.instances.add(client);
		return client;
	}

	/**
	 * @param index the member's start order, from 0
	 * @return that member
	 */
	public HazelcastInstance member(int index) {
		return this.instances.get(index);
	}

	@Override
	public void close() {
		for (HazelcastInstance instance : this.instances) {
			if (instance.getLifecycleService().isRunning()) {
				instance.getLifecycleService().terminate();
			}
		}
	}

	private static int freePortBlock() {
		for (int tries = 0; tries < 100; tries++) {
			int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
			if (free(base, PORTS)) {
				return base;
			}
		}
		throw new IllegalStateException("No block of " + PORTS + " free ports on 127.0.0.1");
	}

	private static boolean free(int base, int count) {
		for (int port = base; port < base + count; port++) {
			try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
				socket.setReuseAddress(true);
			}
			catch (IOException ex) {
				return false;
			}
		}
		return true;
	}

}
