package dev.retrykit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ClusterEngine} on Redis, through Lettuce: keys are UTF-8 strings, values raw bytes that it
 * never decodes. Every read-modify-write is a Lua script, atomic on the server and one round trip
 * ({@code EVALSHA}, {@code EVAL} again after the server lost its script cache).
 *
 * <ul>
 * <li>Stateful contexts of instance {@code i}: strings {@code <prefix>:{i}:context:<key>} holding
 * {@link dev.retrykit.spi.SnapshotCodec encoded snapshots}, with a TTL refreshed by every read and write;
 * sorted set {@code <prefix>:{i}:contexts} of their keys by last use, from which the least recently
 * used beyond the capacity are evicted by the compare-and-set that adds one; hash
 * {@code <prefix>:{i}:evictions} of the evictions by the member whose write caused them. {@code {i}} is
 * the Redis Cluster hash tag: an instance's keys share a slot, so its scripts work on Redis Cluster.</li>
 * <li>Budgets: hash {@code <prefix>.budgets} of thousandths of a token.</li>
 * <li>Circuit transitions: Pub/Sub channel {@code <prefix>.circuits} on a connection of its own; manual
 * circuit states: hash {@code <prefix>.circuit-states}.</li>
 * <li>Members: sorted set {@code <prefix>.members} of member ids by last heartbeat; a member that has not
 * heartbeated for the member timeout is no longer counted.</li>
 * </ul>
 *
 * <p>Trust: Redis Pub/Sub does not say who published a message. A replica publishes its member id with
 * each message, and a receiver gives that id as the sender only if it is a registered member, any
 * other message with the sender {@code unregistered}; but anything the Redis ACL lets publish on the
 * channel and write the members' set can claim a member's id. Redis authenticates connections (AUTH,
 * ACL users, TLS, all from the client's configuration), never the sender of a message: restrict the
 * ACL user that may reach the prefix's keys and channel to the service's replicas.
 *
 * <p>Thread-safe. Every operation may throw Lettuce's exceptions when Redis is unreachable; the
 * {@code RetryCluster} that drives the engine bounds the wait and falls back. {@link #close()} closes
 * the connections the engine opened itself, never the ones it was given.
 */
public final class RedisClusterEngine implements ClusterEngine, AutoCloseable {

	/** Keys as UTF-8 strings, values as the bytes they are. */
	static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

	private static final byte[] NONE = new byte[0];

	private final String prefix;

	private final byte[] contextTtlMillis;

	private final byte[] contextCapacity;

	private final byte[] memberTimeoutMillis;

	private final String member = UUID.randomUUID().toString();

	private final boolean ownsConnections;

	private final StatefulRedisConnection<String, byte[]> connection;

	private final StatefulRedisPubSubConnection<String, byte[]> pubSub;

	private final RedisClusterCommands<String, byte[]> commands;

	private final CircuitChannel circuits;

	RedisClusterEngine(RedisClusterEngineBuilder builder) {
		this.prefix = builder.prefix;
		this.contextTtlMillis = bytes(builder.contextTtl.toMillis());
		this.contextCapacity = bytes(builder.contextCapacity);
		this.memberTimeoutMillis = bytes(builder.memberTimeout.toMillis());
		RedisClient client = builder.client;
		if (client != null) {
			this.ownsConnections = true;
			this.connection = client.connect(CODEC);
			try {
				this.pubSub = client.connectPubSub(CODEC);
			}
			catch (RuntimeException ex) {
				this.connection.close();
				throw ex;
			}
		}
		else {
			this.ownsConnections = false;
			this.connection = requireNonNull(builder.connection);
			this.pubSub = requireNonNull(builder.pubSub);
		}
		this.commands = this.connection.sync();
		this.circuits = new CircuitChannel(this.prefix + ".circuits", membersKey(), this.member, this.pubSub,
				this.connection.async());
	}

	/**
	 * Starts the engine's builder over the application's Redis client.
	 * @param client the application's client; the engine opens two connections with it (commands and
	 * Pub/Sub) and closes them on {@link #close()}
	 * @return a builder with prefix {@code retrykit}, a context TTL of 1 hour, capacity 4096 and a member
	 * timeout of 10 seconds
	 */
	public static RedisClusterEngineBuilder builder(RedisClient client) {
		return new RedisClusterEngineBuilder(client);
	}

	/**
	 * Starts the engine's builder over connections the application opened and keeps.
	 * @param connection a connection with string keys and byte values (e.g. opened with
	 * {@code RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE)}), which the engine shares and never closes
	 * @param pubSub a Pub/Sub connection with the same codec, for the engine's use only (it subscribes
	 * it), never closed by the engine
	 * @return a builder with prefix {@code retrykit}, a context TTL of 1 hour, capacity 4096 and a member
	 * timeout of 10 seconds
	 */
	public static RedisClusterEngineBuilder builder(StatefulRedisConnection<String, byte[]> connection,
			StatefulRedisPubSubConnection<String, byte[]> pubSub) {
		return new RedisClusterEngineBuilder(connection, pubSub);
	}

	@Override
	public String engineName() {
		return "redis";
	}

	/** Heartbeats, forgets the members silent for longer than the member timeout and counts the others. */
	@Override
	public int members() {
		Long members = EngineScripts.HEARTBEAT.run(this.commands, ScriptOutputType.INTEGER, keys(membersKey()),
				bytes(this.member), this.memberTimeoutMillis);
		return Math.toIntExact(members);
	}

	/** @return a random id chosen when the engine was built, under which it heartbeats and publishes */
	@Override
	public String localMember() {
		return this.member;
	}

	private String membersKey() {
		return this.prefix + ".members";
	}

	/** The start of the keys of an instance's contexts, with the instance's hash tag. */
	private String contextKeyStart(String cache) {
		return this.prefix + ":{" + cache + "}:context:";
	}

	private String indexKey(String cache) {
		return this.prefix + ":{" + cache + "}:contexts";
	}

	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		return EngineScripts.GET_CONTEXT.run(this.commands, ScriptOutputType.VALUE,
				keys(contextKeyStart(cache) + key, indexKey(cache)), this.contextTtlMillis, bytes(key));
	}

	/** Compares the stored bytes with {@code expected} byte for byte on the server; evicts beyond the capacity. */
	@Override
	public boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next) {
		Long done = EngineScripts.COMPARE_AND_SET_CONTEXT.run(this.commands, ScriptOutputType.INTEGER,
				keys(contextKeyStart(cache) + key, indexKey(cache), evictionsKey(cache)), this.contextTtlMillis, bytes(key),
				this.contextCapacity, bytes(contextKeyStart(cache)), flag(expected), (expected != null) ? expected : NONE,
				flag(next), (next != null) ? next : NONE, bytes(this.member));
		return done == 1L;
	}

	@Override
	public void removeContext(String cache, String key) {
		EngineScripts.REMOVE_CONTEXT.run(this.commands, ScriptOutputType.INTEGER,
				keys(contextKeyStart(cache) + key, indexKey(cache)), bytes(key));
	}

	@Override
	public int contextCount(String cache) {
		Long count = EngineScripts.COUNT_CONTEXTS.run(this.commands, ScriptOutputType.INTEGER, keys(indexKey(cache)),
				this.contextTtlMillis);
		return Math.toIntExact(count);
	}

	/** The {@code limit} most recently used contexts, read with their index entries in one script. */
	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		List<StoredContext> entries = new ArrayList<>();
		if (limit <= 0) {
			return entries;
		}
		List<Object> found = EngineScripts.LIST_CONTEXTS.run(this.commands, ScriptOutputType.MULTI, keys(indexKey(cache)),
				this.contextTtlMillis, bytes(limit), bytes(contextKeyStart(cache)));
		for (int i = 0; i + 1 < found.size(); i += 2) {
			entries.add(new StoredContext(new String((byte[]) found.get(i), StandardCharsets.UTF_8), (byte[]) found.get(i + 1)));
		}
		return entries;
	}

	@Override
	public void clearContexts(String cache) {
		EngineScripts.CLEAR_CONTEXTS.run(this.commands, ScriptOutputType.INTEGER, keys(indexKey(cache)),
				bytes(contextKeyStart(cache)));
	}

	private String evictionsKey(String cache) {
		return this.prefix + ":{" + cache + "}:evictions";
	}

	/**
	 * The evictions that this replica's writes caused: hash {@code <prefix>:{i}:evictions} counts them per
	 * member id, so that their sum over the replicas is the total, as the contract asks.
	 */
	@Override
	public long contextEvictions(String cache) {
		byte[] evictions = this.commands.hget(evictionsKey(cache), this.member);
		return (evictions != null) ? Long.parseLong(new String(evictions, StandardCharsets.US_ASCII)) : 0;
	}

	@Override
	public long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		return EngineScripts.EXCHANGE_BUDGET.run(this.commands, ScriptOutputType.INTEGER, keys(this.prefix + ".budgets"),
				bytes(budget), bytes(deltaMilliTokens), bytes(maxMilliTokens));
	}

	/** Heartbeats and publishes {@code <member id> SPACE <message>} in one script. */
	@Override
	public void publishCircuit(String message) {
		EngineScripts.PUBLISH.run(this.commands, ScriptOutputType.INTEGER, keys(membersKey()), bytes(this.member),
				this.memberTimeoutMillis, bytes(this.prefix + ".circuits"), this.circuits.envelope(message));
	}

	/**
	 * Subscribes the engine's Pub/Sub connection to {@code <prefix>.circuits}. The sender is the id a
	 * message names if that is a registered member's, else {@code unregistered} (see the class comment).
	 * Receivers are called one message at a time, in order, on Lettuce's {@code eventExecutorGroup}.
	 */
	@Override
	public AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver) {
		return this.circuits.subscribe(receiver);
	}

	private String circuitStatesKey() {
		return this.prefix + ".circuit-states";
	}

	@Override
	public void storeCircuitState(String circuit, @Nullable String state) {
		if (state == null) {
			this.commands.hdel(circuitStatesKey(), circuit);
		}
		else {
			this.commands.hset(circuitStatesKey(), circuit, bytes(state));
		}
	}

	/** @return the stored state as UTF-8 text (malformed bytes replaced), for the caller to check against {@link CircuitSignal.Kind} */
	@Override
	public @Nullable String circuitState(String circuit) {
		byte[] state = this.commands.hget(circuitStatesKey(), circuit);
		return (state != null) ? new String(state, StandardCharsets.UTF_8) : null;
	}

	/** Stops delivering circuit messages and closes the connections the engine opened itself. */
	@Override
	public void close() {
		this.circuits.close();
		leave();
		if (this.ownsConnections) {
			this.pubSub.close();
			this.connection.close();
		}
	}

	/**
	 * Takes this member out of the members' set, so that the others (and a replica restarted in its place) count
	 * it no more from now on instead of after the member timeout. Waits at most a second: an engine closed while
	 * Redis is down leaves it to the timeout.
	 */
	private void leave() {
		try {
			this.connection.async().zrem(membersKey(), bytes(this.member)).toCompletableFuture().get(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			// Counted out by the others after the member timeout instead.
		}
	}

	private static String[] keys(String... keys) {
		return keys;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] bytes(long number) {
		return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] flag(byte @Nullable [] value) {
		return bytes((value != null) ? 1 : 0);
	}

	private static <T> T requireNonNull(@Nullable T value) {
		if (value == null) {
			throw new IllegalStateException("The builder holds neither a client nor connections");
		}
		return value;
	}

	@Override
	public String toString() {
		return "RedisClusterEngine[prefix=" + this.prefix + ", member=" + this.member + "]";
	}

}
