package dev.retrykit.sample.cluster;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectStreamConstants;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.jayway.jsonpath.JsonPath;
import dev.retrykit.cluster.SnapshotCodec;
import dev.retrykit.spi.RetryContextSnapshot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attacker with a foothold in the cluster, against a real replica: a Hazelcast member that joined
 * the sample's cluster (as anything that can reach a member's port can) plants forged entries in the
 * shared {@code payments} contexts — one naming a class that is on the replica's class path but cannot
 * be linked (its dependency, Jedis, is absent: loading it would throw {@code NoClassDefFoundError}), one
 * that is not {@code byte[]} at all, one larger than any snapshot may be. Each order then pays as a
 * fresh key does: the same answer as an order never seen (before, the unlinkable class made every payment
 * of that order answer 500 with a {@code NoClassDefFoundError}). The entries that are no snapshot start a
 * fresh count and are counted as undecodable; the attribute of the unlinkable class stays behind, counted,
 * while the rest of that snapshot (a count, which README says a member can change) is kept; every entry
 * is rewritten by the next write; the engine stays reachable. Runs after
 * {@code package} (Maven Failsafe); it starts and stops the replica and its own member.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PlantedEntriesIT {

	/** On the replica's class path, not linkable there: Jedis is not. */
	private static final String UNLINKABLE = "org.springframework.data.redis.connection.jedis.JedisConnectionFactory";

	private static final String CONTEXTS = "retrykit-sample.contexts.payments";

	private static final int HAZELCAST_PORT = FreePorts.block(HazelcastMemberConfiguration.PORTS);

	private static ReplicaProcess replica;

	private static HazelcastInstance intruder;

	@BeforeAll
	static void startReplicaAndJoinIt() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the sample's executable jar (built by package)").exists();
		replica = ReplicaProcess.start(jar, "replica-planted", "--spring.profiles.active=cluster",
				"--sample.hazelcast.port=" + HAZELCAST_PORT, "--management.endpoint.retries.show-values=always",
				"--logging.level.root=warn");
		ReplicaProcess.await(replica + " serves", Duration.ofSeconds(120),
				() -> replica.bodyOrNull("/actuator/retries") != null);
		intruder = Hazelcast.newHazelcastInstance(intruderConfig());
		ReplicaProcess.await(replica + " sees the joined member", Duration.ofSeconds(60), () -> {
			String retries = replica.bodyOrNull("/actuator/retries");
			return retries != null && retries.contains("\"members\":2");
		});
		assertThat(replica.post("/downstream/script/payments/down").statusCode()).isEqualTo(200);
	}

	@AfterAll
	static void stop() throws Exception {
		if (intruder != null) {
			intruder.shutdown();
		}
		if (replica != null) {
			replica.close();
		}
	}

	@Test
	void forgedEntriesAreTakenForAbsentAndReplacedWhileTheReplicaAnswersAsForFreshKeys() throws Exception {
		IMap<String, Object> contexts = intruder.getMap(CONTEXTS);
		byte[] unlinkable = snapshotNaming(UNLINKABLE);
		// The bytes are a well-formed snapshot: a replica allowing nothing reads its count and drops the attribute.
		SnapshotCodec jdkOnly = SnapshotCodec.jdkValuesOnly();
		assertThat(jdkOnly.decode(unlinkable).getRetryCount()).isEqualTo(2);
		assertThat(jdkOnly.withheldAttributes()).isEqualTo(1);
		contexts.put("A-3", unlinkable);
		contexts.put("A-4", "not the bytes of a snapshot");
		contexts.put("A-5", new byte[100 * 1024]);

		int fresh = replica.post("/shop/orders/never-seen/pay").statusCode();
		assertThat(fresh).as("a fresh order's payment while payments are down").isEqualTo(502);
		for (String order : List.of("A-3", "A-4", "A-5")) {
			long start = System.nanoTime();
			assertThat(replica.post("/shop/orders/" + order + "/pay").statusCode()).as(order).isEqualTo(fresh);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as(order + " answered within").isLessThan(
					Duration.ofSeconds(2));
		}
		// The shared entries as the engine lists them: a read the engine did not answer in time shows "source": "local"
		// and lists none (DESIGN.md), so the test reads again until the engine answers.
		String[] read = new String[1];
		ReplicaProcess.await("the engine lists the payments' shared entries", Duration.ofSeconds(30), () -> {
			read[0] = replica.bodyOrNull("/actuator/retries/payments");
			return read[0] != null && "cluster".equals(JsonPath.read(read[0], "$.contextCache.source"));
		});
		String payments = read[0];
		// The entry naming the unlinkable class is a well-formed snapshot but for that attribute: the attribute
		// stays behind (counted), the count a member may set is kept (README's trust section) and goes on.
		assertThat(retryCount(payments, "A-3")).as("the count of A-3 in " + payments).isEqualTo(3);
		// The entries that are no snapshot at all are taken for absent: the payment starts a fresh count.
		for (String order : List.of("A-4", "A-5", "never-seen")) {
			assertThat(retryCount(payments, order)).as("the count of " + order + " in " + payments).isEqualTo(1);
		}
		for (String order : List.of("A-3", "A-4", "A-5", "never-seen")) {
			assertThat(contexts.get(order)).as(order + " was rewritten as a snapshot").isInstanceOf(byte[].class);
		}
		String retries = replica.bodyOrNull("/actuator/retries");
		assertThat(retries).contains("\"reachable\":true");
		assertThat(counter(retries, "undecodableEntries")).as("entries taken for absent, in " + retries)
			.isGreaterThanOrEqualTo(2);
		assertThat(counter(retries, "withheldAttributes")).as("attributes left behind, in " + retries)
			.isGreaterThanOrEqualTo(1);
	}

	private static long counter(String body, String name) {
		Matcher counter = Pattern.compile("\"" + name + "\":(\\d+)").matcher(body);
		assertThat(counter.find()).as(name + " in " + body).isTrue();
		return Long.parseLong(counter.group(1));
	}

	private static int retryCount(String body, String key) {
		Matcher entry = Pattern.compile("\\{\"key\":\"" + Pattern.quote(key) + "\",\"retryCount\":(\\d+)").matcher(body);
		return entry.find() ? Integer.parseInt(entry.group(1)) : -1;
	}

	/**
	 * A snapshot in the shared format, with 2 failures, whose one attribute is a Java-serialized object
	 * of class {@code className} — written by hand, as an attacker does, since the class cannot be loaded.
	 */
	private static byte[] snapshotNaming(String className) throws IOException {
		ByteArrayOutputStream stream = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(stream)) {
			out.writeShort(ObjectStreamConstants.STREAM_MAGIC);
			out.writeShort(ObjectStreamConstants.STREAM_VERSION);
			out.writeByte(ObjectStreamConstants.TC_OBJECT);
			out.writeByte(ObjectStreamConstants.TC_CLASSDESC);
			out.writeUTF(className);
			out.writeLong(1L);
			out.writeByte(ObjectStreamConstants.SC_SERIALIZABLE);
			out.writeShort(0);
			out.writeByte(ObjectStreamConstants.TC_ENDBLOCKDATA);
			out.writeByte(ObjectStreamConstants.TC_NULL);
		}
		byte[] serialized = stream.toByteArray();
		ByteArrayOutputStream value = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(value)) {
			out.writeByte(30); // the codec's tag of a Java-serialized value
			out.writeInt(serialized.length);
			out.write(serialized);
		}
		// The rest is what the replica's own codec writes for a snapshot with two failures and one attribute.
		RetryContextSnapshot template = RetryContextSnapshot.of("payments", 2, false, "java.io.IOException",
				"payments down", System.currentTimeMillis(), Map.of("gadget", "placeholder"));
		byte[] encoded = SnapshotCodec.jdkValuesOnly().encode(template);
		byte[] placeholderValue = SnapshotCodec.jdkValuesOnly().encode(RetryContextSnapshot.of("payments", 2, false,
				"java.io.IOException", "payments down", template.getFirstFailureMillis(), Map.of()));
		// encoded = prefix (fixed fields, count 1) + name + value + write ids; rebuild it with the forged value.
		int fixed = placeholderValue.length - 4; // without the (empty) write-id count
		ByteArrayOutputStream forged = new ByteArrayOutputStream();
		forged.write(encoded, 0, fixed);
		byte[] name = "gadget".getBytes(StandardCharsets.UTF_8);
		int nameStart = fixed;
		forged.write(encoded, nameStart, 4 + name.length);
		byte[] forgedValue = value.toByteArray();
		try (DataOutputStream out = new DataOutputStream(forged)) {
			out.writeInt(forgedValue.length);
			out.write(forgedValue);
			out.writeInt(0); // no write ids
		}
		return forged.toByteArray();
	}

	private static Config intruderConfig() {
		String address = HazelcastMemberConfiguration.ADDRESS;
		Config config = new Config().setClusterName("retrykit-sample");
		config.setProperty("hazelcast.phone.home.enabled", "false");
		config.setProperty("hazelcast.socket.bind.any", "false");
		config.setProperty("hazelcast.local.localAddress", address);
		config.getJetConfig().setEnabled(false);
		NetworkConfig network = config.getNetworkConfig().setPort(HAZELCAST_PORT + 1).setPortAutoIncrement(true)
			.setPortCount(HazelcastMemberConfiguration.PORTS - 1).setPublicAddress(address);
		network.getInterfaces().setEnabled(true).addInterface(address);
		JoinConfig join = network.getJoin();
		join.getMulticastConfig().setEnabled(false);
		join.getAutoDetectionConfig().setEnabled(false);
		for (int port = HAZELCAST_PORT; port < HAZELCAST_PORT + HazelcastMemberConfiguration.PORTS; port++) {
			join.getTcpIpConfig().setEnabled(true).addMember(address + ":" + port);
		}
		return config;
	}

}
