package dev.retrykit.redis;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.retrykit.testing.redis.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a client that may publish on the circuit channel can do to a replica's subscription, against a
 * real {@code redis-server}: a huge message is not copied, a flood of made-up senders costs a bounded
 * number of lookups, an {@code Error} stops nothing, and a subscription the ACL refused for a while comes
 * back. And what the README's ACL user cannot do.
 */
class RedisCircuitChannelTests {

	private static RedisTestServer redis;

	private static RedisClient admin;

	private static StatefulRedisConnection<String, byte[]> raw;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private final String prefix = "channel-" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeAll
	static void startRedis() {
		redis = new RedisTestServer();
		admin = RedisClient.create(redis.uri());
		raw = admin.connect(RedisEngine.CODEC);
	}

	@AfterAll
	static void stopRedis() {
		raw.close();
		admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		redis.close();
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	private static RedisCommands<String, byte[]> redis() {
		return raw.sync();
	}

	private RedisEngine engine(RedisClient client) {
		RedisEngine engine = RedisEngine.builder(client).prefix(this.prefix).build();
		this.closeables.add(engine);
		return engine;
	}

	private RedisClient client(io.lettuce.core.RedisURI uri) {
		RedisClient client = RedisClient.create(uri);
		this.closeables.add(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
		return client;
	}

	private void publishRaw(byte[] payload) {
		redis().publish(this.prefix + ".circuits", payload);
	}

	private void publishRaw(String payload) {
		publishRaw(payload.getBytes(StandardCharsets.UTF_8));
	}

	@Test
	void aLongPayloadIsNotCopiedAndArrivesAsSomethingThatIsNotText() throws InterruptedException {
		RedisEngine engine = engine(admin);
		List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
		CountDownLatch both = new CountDownLatch(2);
		this.closeables.add(engine.subscribeCircuits((message, sender) -> {
			received.add(message + " from " + sender);
			both.countDown();
		}));
		byte[] eightMegabytes = new byte[8 * 1024 * 1024];
		java.util.Arrays.fill(eightMegabytes, (byte) 'a');
		long allocatedBefore = allocatedByAllThreads();
		publishFromAnotherProcess(eightMegabytes);
		engine.publishCircuit("CLOSE|r|after");
		assertThat(both.await(20, TimeUnit.SECONDS)).isTrue();
		long allocated = allocatedByAllThreads() - allocatedBefore;
		assertThat(received).containsExactly("null from unregistered", "CLOSE|r|after from " + engine.localMember());
		// Lettuce's network buffer holds the whole reply (on the heap, with this JDK and Netty): 8 MiB. The
		// engine adds at most 2 MiB to it; a copy of the payload would add 8 MiB, its decoding as text 8 to 24 more.
		assertThat(allocated - eightMegabytes.length).as("bytes allocated beyond Lettuce's buffer").isLessThan(2 * 1024 * 1024);
	}

	/** Publishes with a RESP command written straight to a socket, so that this JVM allocates nothing to send it. */
	private void publishFromAnotherProcess(byte[] payload) {
		byte[] channel = (this.prefix + ".circuits").getBytes(StandardCharsets.UTF_8);
		try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), redis.port())) {
			java.io.OutputStream out = socket.getOutputStream();
			out.write(("*3\r\n$7\r\nPUBLISH\r\n$" + channel.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			out.write(channel);
			out.write(("\r\n$" + payload.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			out.write(payload);
			out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			assertThat(socket.getInputStream().read()).isEqualTo(':');
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static long allocatedByAllThreads() {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long total = 0;
		for (long allocated : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
			total += Math.max(0, allocated);
		}
		return total;
	}

	@Test
	void aFloodOfMessagesClaimingMadeUpSendersCostsABoundedNumberOfLookups() throws InterruptedException {
		RedisEngine engine = engine(admin);
		int messages = 1_000;
		CountDownLatch all = new CountDownLatch(messages + 1);
		Map<String, Integer> senders = new ConcurrentHashMap<>();
		this.closeables.add(engine.subscribeCircuits((message, sender) -> {
			senders.merge(sender, 1, Integer::sum);
			all.countDown();
		}));
		long lookupsBefore = zscoreCalls();
		for (int i = 0; i < messages; i++) {
			// Half look like signals from made-up members, half are not signals at all.
			publishRaw("made-up-" + i + ((i % 2 == 0) ? " TRIP|r|inventory" : " hello"));
		}
		engine.publishCircuit("TRIP|r|inventory");
		assertThat(all.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(zscoreCalls() - lookupsBefore).isLessThanOrEqualTo(MemberCheck.LOOKUPS_PER_HEARTBEAT);
		assertThat(senders).containsEntry(MemberCheck.UNREGISTERED, messages).containsEntry(engine.localMember(), 1);
	}

	@Test
	void aRegisteredSenderIsLookedUpOncePerHeartbeat() throws InterruptedException {
		RedisEngine receiver = engine(admin);
		RedisEngine sender = engine(admin);
		CountDownLatch all = new CountDownLatch(200);
		Map<String, Integer> senders = new ConcurrentHashMap<>();
		this.closeables.add(receiver.subscribeCircuits((message, from) -> {
			senders.merge(from, 1, Integer::sum);
			all.countDown();
		}));
		long lookupsBefore = zscoreCalls();
		for (int i = 0; i < 200; i++) {
			sender.publishCircuit("TRIP|r|inventory-" + i);
		}
		assertThat(all.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(senders).containsExactly(Map.entry(sender.localMember(), 200));
		assertThat(zscoreCalls() - lookupsBefore).isEqualTo(1);
	}

	private static long zscoreCalls() {
		Matcher calls = Pattern.compile("cmdstat_zscore:calls=(\\d+)").matcher(redis().info("commandstats"));
		return calls.find() ? Long.parseLong(calls.group(1)) : 0;
	}

	@Test
	void aReceiverThatThrowsAnErrorStopsNoDeliveryAndMixesUpNoSender() throws InterruptedException {
		RedisEngine receiver = engine(admin);
		RedisEngine sender = engine(admin);
		Map<String, String> received = new ConcurrentHashMap<>();
		CountDownLatch three = new CountDownLatch(3);
		this.closeables.add(receiver.subscribeCircuits((message, from) -> {
			received.put(String.valueOf(message), from);
			three.countDown();
			if ("TRIP|r|first".equals(message)) {
				throw new StackOverflowError("a receiver's bug");
			}
		}));
		sender.publishCircuit("TRIP|r|first");
		sender.publishCircuit("TRIP|r|second");
		sender.publishCircuit("TRIP|r|third");
		assertThat(three.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(received).containsEntry("TRIP|r|second", sender.localMember()).containsEntry("TRIP|r|third",
				sender.localMember());
	}

	@Test
	void aSubscriptionTheAclRefusedForAWhileComesBackAtAHeartbeat() throws InterruptedException {
		ReadmeAclUser user = new ReadmeAclUser(this.prefix).create(redis);
		RedisEngine engine = engine(client(user.uri(redis)));
		List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.closeables.add(engine.subscribeCircuits((message, sender) -> received.add(String.valueOf(message))));
		// Redis disconnects a subscriber whose channel its user may no longer read; Lettuce reconnects and is refused.
		redis.cli("ACL", "SETUSER", user.name(), "resetchannels");
		awaitTrue("the subscriber reconnected and was refused its subscription", () -> {
			List<String> clients = redis.cli("CLIENT", "LIST").lines().filter(client -> client.contains("user=" + user.name() + " "))
				.toList();
			return clients.size() == 2 && clients.stream().noneMatch(client -> client.contains("sub=1"));
		});
		redis.cli("ACL", "SETUSER", user.name(), "&" + this.prefix + ".circuits");
		awaitTrue("a message published after the ACL was fixed arrives", () -> {
			engine.members();
			publishRaw("someone ping-" + UUID.randomUUID());
			return received.stream().anyMatch(message -> message.startsWith("ping"));
		});
	}

	@Test
	void theReadmesAclUserCanNeitherFlushNorReconfigureNorReachOtherKeys() {
		ReadmeAclUser user = new ReadmeAclUser(this.prefix).create(redis);
		try (StatefulRedisConnection<String, byte[]> connection = client(user.uri(redis)).connect(RedisEngine.CODEC)) {
			RedisCommands<String, byte[]> commands = connection.sync();
			List<Runnable> refused = List.of(commands::flushall, commands::flushdb, () -> commands.configSet("maxmemory", "1"),
					() -> commands.keys("*"), () -> commands.get(this.prefix + "-payments-prod:x"),
					() -> commands.set("other:x", new byte[] { 1 }), () -> commands.publish("other.circuits", new byte[] { 1 }),
					() -> commands.eval("return redis.call('FLUSHALL')", io.lettuce.core.ScriptOutputType.STATUS, new String[0]),
					() -> commands.eval("return redis.call('GET', KEYS[1])", io.lettuce.core.ScriptOutputType.VALUE,
							new String[] { "other:x" }));
			for (Runnable command : refused) {
				// A script's refused command or key is reported as an ERR naming the script.
				assertThatExceptionOfType(RedisCommandExecutionException.class).isThrownBy(command::run)
					.satisfies(ex -> assertThat(ex.getMessage()).containsAnyOf("NOPERM", "can't run this command", "can't access"));
			}
			assertThatExceptionOfType(RedisCommandExecutionException.class)
				.isThrownBy(() -> commands.dispatch(io.lettuce.core.protocol.CommandType.ACL,
						new io.lettuce.core.output.StatusOutput<>(RedisEngine.CODEC),
						new io.lettuce.core.protocol.CommandArgs<>(RedisEngine.CODEC).add("SETUSER").add(user.name()).add("+@all")))
				.withMessageContaining("NOPERM");
		}
		assertThat(redis.cli("ACL", "GETUSER", user.name())).doesNotContain("+@all");
	}

	private static void awaitTrue(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Waited 20 s in vain for: " + what);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
		}
	}

}
