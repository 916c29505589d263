package dev.retrykit.redis;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.cluster.SnapshotCodec;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import static dev.retrykit.redis.StructureRepair.Structure.hash;
import static dev.retrykit.redis.StructureRepair.Structure.sortedSet;

/**
 * The {@link ClusterEngine} on Redis, through Lettuce: keys are UTF-8 strings, values raw bytes that it
 * never decodes. Every read-modify-write is a Lua script, atomic on the server and one round trip
 * ({@code EVALSHA}, {@code EVAL} again after the server lost its script cache).
 *
 * <ul>
 * <li>Stateful contexts of instance {@code i}: strings {@code <prefix>:{i}:context:<key>} holding
 * {@link dev.retrykit.cluster.SnapshotCodec encoded snapshots}, with a TTL refreshed by every read and write;
 * sorted set {@code <prefix>:{i}:contexts} of their keys by last use, from which the least recently
 * used beyond the capacity are evicted by the compare-and-set that adds one; hash
 * {@code <prefix>:{i}:evictions} of the evictions by the member whose write caused them. {@code {i}} is
 * the Redis Cluster hash tag: an instance's keys share a slot, so its scripts work on Redis Cluster; the
 * instance name is escaped in it ({@link RedisKeys}), so no name can reach another instance's keys.</li>
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
 * ACL user that may reach the prefix's keys and channel to the service's replicas (the README gives one
 * that has only the commands the engine and its scripts run).
 *
 * <p>What such a user may leave in the keys takes no replica off shared state and reaches no caller: a
 * context of another type or longer than {@link SnapshotCodec#MAX_BYTES} is read as {@link #UNREADABLE}
 * without being sent, and replaced by the next write; a sorted set or hash of the engine's that holds
 * another type is deleted and made again ({@link StructureRepair}); a budget or eviction count that is not
 * a finite number counts as absent; a Pub/Sub message longer than a circuit message is not copied
 * ({@link #pubSubCodec()}).
 *
 * <p>Thread-safe. Every operation may throw Lettuce's exceptions when Redis is unreachable; the
 * {@code RetryCluster} that drives the engine bounds the wait and falls back. {@link #close()} closes
 * the connections the engine opened itself, never the ones it was given.
 */
public final class RedisEngine implements ClusterEngine, AutoCloseable {

	private static final System.Logger LOGGER = System.getLogger(RedisEngine.class.getName());

	/** Keys as UTF-8 strings, values as the bytes they are. */
	static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

	/**
	 * The longest key, in UTF-8 bytes, that retry-core shares: longer ones travel as {@code sha256:} and the
	 * hex digest. An index member longer than this was not written by any replica.
	 */
	static final int MAX_KEY_BYTES = 1024;

	/**
	 * What the engine reads for a context of another type or longer than {@link SnapshotCodec#MAX_BYTES}: bytes
	 * no snapshot decodes from (its format byte is 0), which a compare-and-set that expects them replaces.
	 */
	static final byte[] UNREADABLE = "\0retrykit: not a string of at most 65536 bytes".getBytes(StandardCharsets.US_ASCII);

	/** The longest stored circuit state sent to the replica; the states it writes are a few letters. */
	private static final byte[] CIRCUIT_STATE_LIMIT = bytes(64);

	private static final byte[] NONE = new byte[0];

	private final RedisKeys keys;

	private final byte[] contextTtlMillis;

	private final byte[] contextCapacity;

	private final byte[] memberTimeoutMillis;

	private final byte[] sizeLimit = bytes(SnapshotCodec.MAX_BYTES);

	private final String member = UUID.randomUUID().toString();

	private final boolean ownsConnections;

	private final StatefulRedisConnection<String, byte[]> connection;

	private final StatefulRedisPubSubConnection<String, byte[]> pubSub;

	private final RedisClusterCommands<String, byte[]> commands;

	private final StructureRepair repair;

	private final CircuitChannel circuits;

	/** Whether a count of evictions that is not a number was logged. */
	private final AtomicBoolean evictionsLogged = new AtomicBoolean();

	RedisEngine(RedisEngineBuilder builder) {
		this.keys = new RedisKeys(builder.prefix);
		this.contextTtlMillis = bytes(builder.contextTtl.toMillis());
		this.contextCapacity = bytes(builder.contextCapacity);
		this.memberTimeoutMillis = bytes(builder.memberTimeout.toMillis());
		RedisClient client = builder.client;
		if (client != null) {
			this.ownsConnections = true;
			this.connection = client.connect(CODEC);
			try {
				this.pubSub = client.connectPubSub(BoundedPayloadCodec.INSTANCE);
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
		this.repair = new StructureRepair(this.commands);
		this.circuits = new CircuitChannel(this.keys.circuits(), this.member, this.pubSub, new MemberCheck(this.keys.members(),
				this.member, this.connection.async()));
	}

	/**
	 * Starts the engine's builder over the application's Redis client.
	 * @param client the application's client; the engine opens two connections with it (commands and
	 * Pub/Sub) and closes them on {@link #close()}
	 * @return a builder with prefix {@code retrykit}, a context TTL of 1 hour, capacity 4096 and a member
	 * timeout of 10 seconds
	 */
	public static RedisEngineBuilder builder(RedisClient client) {
		return new RedisEngineBuilder(client);
	}

	/**
	 * Starts the engine's builder over connections the application opened and keeps.
	 * @param connection a connection with string keys and byte values (e.g. opened with
	 * {@code RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE)}), which the engine shares and never closes
	 * @param pubSub a Pub/Sub connection for the engine's use only (it subscribes it), never closed by the
	 * engine: open it with {@link #pubSubCodec()}, which refuses to copy a message longer than a circuit
	 * message can be (with another codec, the whole of what anyone publishes on the channel is copied
	 * before the engine can check its length)
	 * @return a builder with prefix {@code retrykit}, a context TTL of 1 hour, capacity 4096 and a member
	 * timeout of 10 seconds
	 */
	public static RedisEngineBuilder builder(StatefulRedisConnection<String, byte[]> connection,
			StatefulRedisPubSubConnection<String, byte[]> pubSub) {
		return new RedisEngineBuilder(connection, pubSub);
	}

	/**
	 * {@return the codec to open a Pub/Sub connection with, for {@link #builder(StatefulRedisConnection,
	 * StatefulRedisPubSubConnection)}: string keys and byte values, where a value longer than a circuit
	 * message can be is not copied}
	 */
	public static RedisCodec<String, byte[]> pubSubCodec() {
		return BoundedPayloadCodec.INSTANCE;
	}

	@Override
	public String engineName() {
		return "redis";
	}

	/**
	 * Heartbeats, forgets the members silent for longer than the member timeout (and those that claim a
	 * heartbeat in the future), counts the others; checks the circuit subscription is still there.
	 */
	@Override
	public int members() {
		Long members = this.repair.run(() -> EngineScripts.HEARTBEAT.run(this.commands, ScriptOutputType.INTEGER,
				keys(this.keys.members()), bytes(this.member), this.memberTimeoutMillis), sortedSet(this.keys.members()));
		this.circuits.heartbeat();
		return Math.toIntExact(members);
	}

	/** @return a random id chosen when the engine was built, under which it heartbeats and publishes */
	@Override
	public String localMember() {
		return this.member;
	}

	/**
	 * @return the stored bytes, or {@link #UNREADABLE} (which decodes to nothing) when the key holds another
	 * type or a string longer than {@link SnapshotCodec#MAX_BYTES}, which is then not sent
	 */
	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		return this.repair.run(() -> EngineScripts.GET_CONTEXT.run(this.commands, ScriptOutputType.VALUE,
				keys(this.keys.context(cache, key), this.keys.index(cache)), this.contextTtlMillis, bytes(key), this.sizeLimit,
				UNREADABLE), sortedSet(this.keys.index(cache)));
	}

	/**
	 * Compares the stored bytes with {@code expected} byte for byte on the server ({@link #UNREADABLE}
	 * matches a value of another type or too long, which is then replaced); evicts beyond the capacity.
	 */
	@Override
	public boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next) {
		Long done = this.repair.run(() -> EngineScripts.COMPARE_AND_SET_CONTEXT.run(this.commands, ScriptOutputType.INTEGER,
				keys(this.keys.context(cache, key), this.keys.index(cache), this.keys.evictions(cache)), this.contextTtlMillis,
				bytes(key), this.contextCapacity, bytes(this.keys.contextKeyStart(cache)), flag(expected),
				(expected != null) ? expected : NONE, flag(next), (next != null) ? next : NONE, bytes(this.member),
				this.sizeLimit, UNREADABLE), sortedSet(this.keys.index(cache)), hash(this.keys.evictions(cache)));
		return done == 1L;
	}

	@Override
	public void removeContext(String cache, String key) {
		this.repair.run(() -> EngineScripts.REMOVE_CONTEXT.run(this.commands, ScriptOutputType.INTEGER,
				keys(this.keys.context(cache, key), this.keys.index(cache)), bytes(key)), sortedSet(this.keys.index(cache)));
	}

	@Override
	public int contextCount(String cache) {
		Long count = this.repair.run(() -> EngineScripts.COUNT_CONTEXTS.run(this.commands, ScriptOutputType.INTEGER,
				keys(this.keys.index(cache)), this.contextTtlMillis), sortedSet(this.keys.index(cache)));
		return Math.toIntExact(count);
	}

	/**
	 * The {@code limit} most recently used contexts, read with their index entries in one script; one of
	 * another type or too long comes as {@link #UNREADABLE}.
	 */
	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		List<StoredContext> entries = new ArrayList<>();
		if (limit <= 0) {
			return entries;
		}
		List<Object> found = this.repair.run(() -> EngineScripts.LIST_CONTEXTS.run(this.commands, ScriptOutputType.MULTI,
				keys(this.keys.index(cache)), this.contextTtlMillis, bytes(limit), bytes(this.keys.contextKeyStart(cache)),
				this.sizeLimit, UNREADABLE, bytes(MAX_KEY_BYTES)), sortedSet(this.keys.index(cache)));
		for (int i = 0; i + 1 < found.size(); i += 2) {
			entries.add(new StoredContext(new String((byte[]) found.get(i), StandardCharsets.UTF_8), (byte[]) found.get(i + 1)));
		}
		return entries;
	}

	@Override
	public void clearContexts(String cache) {
		this.repair.run(() -> EngineScripts.CLEAR_CONTEXTS.run(this.commands, ScriptOutputType.INTEGER,
				keys(this.keys.index(cache)), bytes(this.keys.contextKeyStart(cache))), sortedSet(this.keys.index(cache)));
	}

	/**
	 * The evictions that this replica's writes caused: hash {@code <prefix>:{i}:evictions} counts them per
	 * member id, so that their sum over the replicas is the total, as the contract asks. A count that is
	 * not a number (anything can write there) counts as 0, with one warning, until the next eviction
	 * writes a number again.
	 */
	@Override
	public long contextEvictions(String cache) {
		String key = this.keys.evictions(cache);
		Long evictions = this.repair.run(() -> EngineScripts.READ_EVICTIONS.run(this.commands, ScriptOutputType.INTEGER,
				keys(key), bytes(this.member)), hash(key));
		if (evictions < 0) {
			if (this.evictionsLogged.compareAndSet(false, true)) {
				LOGGER.log(Level.WARNING, "Redis hash '" + key + "' holds a count of evictions for this replica that is not"
						+ " a number; counting 0 until the next eviction writes one (logged once)");
			}
			return 0;
		}
		return evictions;
	}

	@Override
	public long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		return this.repair.run(() -> EngineScripts.EXCHANGE_BUDGET.run(this.commands, ScriptOutputType.INTEGER,
				keys(this.keys.budgets()), bytes(budget), bytes(deltaMilliTokens), bytes(maxMilliTokens)),
				hash(this.keys.budgets()));
	}

	/** Heartbeats and publishes {@code <member id> SPACE <message>} in one script. */
	@Override
	public void publishCircuit(String message) {
		this.repair.run(() -> EngineScripts.PUBLISH.run(this.commands, ScriptOutputType.INTEGER, keys(this.keys.members()),
				bytes(this.member), this.memberTimeoutMillis, bytes(this.keys.circuits()), this.circuits.envelope(message)),
				sortedSet(this.keys.members()));
	}

	/**
	 * Subscribes the engine's Pub/Sub connection to {@code <prefix>.circuits}. The sender is the id a
	 * message names if that is a registered member's, else {@code unregistered} (see {@link CircuitChannel}).
	 * Receivers are called one message at a time, in order, on Lettuce's {@code eventExecutorGroup}.
	 */
	@Override
	public AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver) {
		return this.circuits.subscribe(receiver);
	}

	@Override
	public void storeCircuitState(String circuit, @Nullable String state) {
		String key = this.keys.circuitStates();
		this.repair.run(() -> (state == null) ? this.commands.hdel(key, circuit) : this.commands.hset(key, circuit, bytes(state)),
				hash(key));
	}

	/**
	 * @return the stored state as UTF-8 text (malformed bytes replaced), for the caller to check against
	 * {@link CircuitSignal.Kind}; a state longer than 64 bytes is not sent, and reads as a text saying so
	 */
	@Override
	public @Nullable String circuitState(String circuit) {
		byte[] state = this.repair.run(() -> EngineScripts.CIRCUIT_STATE.run(this.commands, ScriptOutputType.VALUE,
				keys(this.keys.circuitStates()), bytes(circuit), CIRCUIT_STATE_LIMIT), hash(this.keys.circuitStates()));
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
			this.connection.async().zrem(this.keys.members(), bytes(this.member)).toCompletableFuture().get(1, TimeUnit.SECONDS);
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
		return "RedisEngine[prefix=" + this.keys.prefix() + ", member=" + this.member + "]";
	}

}
