package dev.retrykit.sample.cluster;

import java.io.IOException;
import java.io.Serializable;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.Optional;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sample's {@code cluster} profile as an operator and an attacker on the network see it: its Hazelcast member
 * listens on 127.0.0.1 only, and refuses to deserialize classes that retrykit never stores.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@ActiveProfiles("cluster")
class ClusterProfileNetworkTests {

	@DynamicPropertySource
	static void ports(DynamicPropertyRegistry registry) {
		int base = FreePorts.block(HazelcastMemberConfiguration.PORTS);
		registry.add("sample.hazelcast.port", () -> base);
		registry.add("spring.application.name", () -> "retrykit-sample-network-test-" + base);
	}

	@Autowired
	HazelcastInstance hazelcast;

	@Test
	void theMemberListensOnTheLoopbackInterfaceOnly() throws IOException {
		InetSocketAddress member = (InetSocketAddress) this.hazelcast.getLocalEndpoint().getSocketAddress();
		assertThat(member.getAddress().isLoopbackAddress()).isTrue();
		if (ListeningSockets.available()) {
			List<InetAddress> listening = ListeningSockets.on(member.getPort());
			assertThat(listening).as("addresses listening on port %d", member.getPort()).isNotEmpty()
				.allSatisfy(address -> assertThat(address.isLoopbackAddress()).as(address.toString()).isTrue());
		}
		Optional<InetAddress> external = nonLoopbackAddress();
		if (external.isPresent()) {
			assertThatThrownBy(() -> {
				try (Socket socket = new Socket()) {
					socket.connect(new InetSocketAddress(external.get(), member.getPort()), 2000);
				}
			}).isInstanceOf(ConnectException.class);
		}
	}

	@Test
	void theMemberRefusesToDeserializeAClassOutsideItsAllowList() {
		IMap<String, Object> map = this.hazelcast.getMap("network-test");
		map.put("bytes", new byte[] { 1, 2 });
		map.put("count", 42L);
		map.put("application", new Gadget("rm -rf"));
		map.put("jdk-gadget", new javax.management.BadAttributeValueExpException("gadget"));

		assertThat(map.get("bytes")).isEqualTo(new byte[] { 1, 2 });
		assertThat(map.get("count")).isEqualTo(42L);
		// Hazelcast's default allow-list admits every class whose name starts with "java": the sample's does not.
		for (String refused : List.of("application", "jdk-gadget")) {
			assertThatThrownBy(() -> map.get(refused)).as(refused).hasStackTraceContaining("Resolving class");
		}
		assertThatThrownBy(() -> map.get("application")).hasStackTraceContaining(Gadget.class.getName());
	}

	private static Optional<InetAddress> nonLoopbackAddress() throws SocketException {
		return NetworkInterface.networkInterfaces()
			.filter(network -> {
				try {
					return network.isUp() && !network.isLoopback();
				}
				catch (SocketException ex) {
					return false;
				}
			})
			.flatMap(NetworkInterface::inetAddresses)
			.filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress())
			.findFirst();
	}

	/** A class a member has no reason to deserialize. */
	record Gadget(String command) implements Serializable {
	}

}
