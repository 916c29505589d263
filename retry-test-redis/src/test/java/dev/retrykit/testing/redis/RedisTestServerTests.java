package dev.retrykit.testing.redis;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RedisTestServerTests {

	@Test
	void aFreePortTakenBeforeTheServerBindsItIsLeftForTheNextOne() throws Exception {
		try (ServerSocket holder = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			int taken = holder.getLocalPort();
			AtomicInteger picks = new AtomicInteger();
			try (RedisTestServer server = new RedisTestServer(
					() -> (picks.getAndIncrement() == 0) ? taken : RedisTestServer.freePort())) {
				assertThat(server.port()).isNotEqualTo(taken);
				assertThat(picks).hasValue(2);
				assertThat(server.cli("PING")).isEqualTo("PONG");
			}
		}
	}

	@Test
	void anotherRedisServerOnThePortIsNeverTakenForTheNewOne() {
		try (RedisTestServer first = new RedisTestServer()) {
			AtomicInteger picks = new AtomicInteger();
			try (RedisTestServer second = new RedisTestServer(
					() -> (picks.getAndIncrement() == 0) ? first.port() : RedisTestServer.freePort())) {
				assertThat(second.port()).isNotEqualTo(first.port());
				assertThat(second.pid()).isNotEqualTo(first.pid());
				assertThat(second.cli("INFO", "server")).contains("process_id:" + second.pid());
			}
		}
	}

	@Test
	void givesUpNamingThePortsWhenEveryOneTriedWasTaken() {
		try (RedisTestServer first = new RedisTestServer()) {
			AtomicInteger picks = new AtomicInteger();
			assertThatIllegalStateException().isThrownBy(() -> new RedisTestServer(() -> {
				picks.incrementAndGet();
				return first.port();
			})).withMessageContaining("could bind none of the free ports").withMessageContaining(Integer.toString(first.port()));
			assertThat(picks).hasValue(RedisTestServer.PORT_TRIES);
			assertThat(first.cli("PING")).isEqualTo("PONG");
		}
	}

}
