package dev.retrykit.hazelcast;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import com.hazelcast.query.Predicates;
import com.hazelcast.topic.ITopic;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.cluster.SnapshotCodec;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ClusterEngine} on Hazelcast 5.5, Community edition, through the application's own
 * {@link HazelcastInstance} (an embedded member or a client).
 *
 * <ul>
 * <li>Stateful contexts: one {@code IMap<String, byte[]>} per instance, {@code <prefix>.contexts.<instance>},
 * holding {@link dev.retrykit.cluster.SnapshotCodec encoded snapshots} that it never decodes, updated by compare-and-set
 * ({@code putIfAbsent} / {@code replace(key, old, new)} / {@code remove(key, old)}, in the loop of the
 * cluster's {@code RetryContextCache.update}), with a TTL, an LRU size bound per member and one
 * backup.</li>
 * <li>Budgets: {@code IMap<String, Long>} {@code <prefix>.budgets} of thousandths of a token, updated by
 * compare-and-set, with one backup.</li>
 * <li>Circuit transitions: {@code ITopic<String>} {@code <prefix>.circuits} of {@link CircuitSignal#encode()
 * encoded signals}, each delivered with the UUID of the member that published it (for a client, the
 * member it published through); manual circuit states in {@code IMap<String, String>}
 * {@code <prefix>.circuit-states}, with one backup.</li>
 * </ul>
 * No entry processor and no CP data structure is used, and only {@code String}, {@code Long} and
 * {@code byte[]} are stored, all through Hazelcast's own serializers: the servers need none of the
 * application's classes, and only the maps' dynamic configuration travels Java-serialized
 * ({@link #javaSerializationFilter()}; the engine warns once when its instance has no filter that refuses
 * the rest).
 *
 * <p>Trust: whatever a member or client of the cluster put in these maps is read without failing. A
 * context that is not a {@code byte[]}, is longer than {@link SnapshotCodec#MAX_BYTES} or cannot be
 * deserialized here reads as bytes no snapshot decodes from, and the next write of its key replaces it
 * (under the key's lock, since it cannot be compared); a budget that is not a {@code Long} starts full
 * again; a circuit state that is not a {@code String} reads as a text saying so; a topic message that
 * cannot be deserialized is delivered as not text. Each counts where the cluster counts undecodable
 * entries and dropped messages.
 *
 * <p>Thread-safe; every operation may throw Hazelcast's exceptions when the instance is shut down or the
 * cluster unreachable (the {@code RetryCluster} that drives the engine bounds the wait and falls back).
 */
public final class HazelcastClusterEngine implements ClusterEngine {

	private static final System.Logger LOGGER = System.getLogger(HazelcastClusterEngine.class.getName());

	/**
	 * What a context that is not a {@code byte[]} of at most {@link SnapshotCodec#MAX_BYTES}, or cannot be
	 * deserialized here, reads as: bytes no snapshot decodes from (its format byte is 0).
	 */
	static final byte[] UNREADABLE = "\0retrykit: not a byte[] of at most 65536 bytes".getBytes(StandardCharsets.US_ASCII);

	private static final Predicate<Object> NOT_A_SNAPSHOT = value -> !(value instanceof byte[] bytes)
			|| bytes.length > SnapshotCodec.MAX_BYTES;

	private static final Predicate<Object> NOT_A_LONG = value -> !(value instanceof Long);

	private static final Predicate<Object> NOT_A_STRING = value -> !(value instanceof String);

	private final HazelcastInstance hazelcast;

	private final String prefix;

	HazelcastClusterEngine(HazelcastClusterEngineBuilder builder) {
		this.hazelcast = builder.hazelcast;
		this.prefix = builder.prefix;
		MapConfig contexts = new MapConfig(this.prefix + ".contexts.*").setBackupCount(1)
			.setTimeToLiveSeconds((int) Math.min(Integer.MAX_VALUE, builder.contextTtl.getSeconds()))
			.setEvictionConfig(new EvictionConfig().setEvictionPolicy(EvictionPolicy.LRU)
				.setMaxSizePolicy(MaxSizePolicy.PER_NODE).setSize(builder.contextCapacity));
		declare(contexts);
		declare(new MapConfig(this.prefix + ".budgets").setBackupCount(1));
		declare(new MapConfig(this.prefix + ".circuit-states").setBackupCount(1));
		SerializationFilterCheck.warnIfMissing(this.hazelcast);
	}

	/**
	 * The Java serialization filter to give every member and client of the cluster the engine uses: its
	 * defaults disabled (they admit every class whose name starts with {@code java}, {@code javax.*}
	 * included, and {@code com.hazelcast.}), and a whitelist of what the engine needs: {@code String},
	 * {@code Long} and {@code byte[]}, the types it stores, which Hazelcast never reads through Java
	 * serialization (it has serializers of its own for them; they are listed because with an empty
	 * whitelist Hazelcast admits every class), and {@code java.util.Properties} with its superclass
	 * {@code java.util.Hashtable}, which the dynamic configuration of the engine's maps carries. Add to the
	 * whitelist the classes your application itself keeps in Hazelcast.
	 * @return a new filter configuration, for {@code SerializationConfig.setJavaSerializationFilterConfig}
	 */
	public static JavaSerializationFilterConfig javaSerializationFilter() {
		return SerializationFilterCheck.recommended();
	}

	/**
	 * Starts the engine's builder over the application's own Hazelcast instance.
	 * @param hazelcast the application's instance, member or client
	 * @return a builder with prefix {@code retrykit}, a context TTL of 1 hour and capacity 4096
	 */
	public static HazelcastClusterEngineBuilder builder(HazelcastInstance hazelcast) {
		return new HazelcastClusterEngineBuilder(hazelcast);
	}

	private void declare(MapConfig config) {
		try {
			this.hazelcast.getConfig().addMapConfig(config);
		}
		catch (InvalidConfigurationException ex) {
			LOGGER.log(Level.WARNING, "Hazelcast already has a different configuration for map '" + config.getName()
					+ "'; keeping it (retrykit wanted " + config + ")");
		}
	}

	@Override
	public String engineName() {
		return "hazelcast";
	}

	@Override
	public int members() {
		if (!this.hazelcast.getLifecycleService().isRunning()) {
			throw new HazelcastInstanceNotActiveException("Hazelcast instance '" + this.hazelcast.getName() + "' is not running");
		}
		return this.hazelcast.getCluster().getMembers().size();
	}

	@Override
	public String localMember() {
		return this.hazelcast.getLocalEndpoint().getUuid().toString();
	}

	private IMap<String, Object> contexts(String cache) {
		return this.hazelcast.getMap(this.prefix + ".contexts." + cache);
	}

	/**
	 * @return the stored bytes, or {@link #UNREADABLE} for a value that is not a {@code byte[]} of at most
	 * {@link SnapshotCodec#MAX_BYTES} or cannot be deserialized here
	 */
	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		return snapshotBytes(ForeignValues.read(contexts(cache), key, NOT_A_SNAPSHOT));
	}

	private static byte @Nullable [] snapshotBytes(@Nullable Object value) {
		return (value != null) ? presentSnapshotBytes(value) : null;
	}

	private static byte[] presentSnapshotBytes(Object value) {
		return (value == ForeignValues.UNREADABLE) ? UNREADABLE.clone() : (byte[]) value;
	}

	/** Compares serialized values byte for byte; {@link #UNREADABLE} as {@code expected} replaces a value read as it. */
	@Override
	public boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next) {
		IMap<String, Object> map = contexts(cache);
		if (expected != null && Arrays.equals(expected, UNREADABLE)) {
			return ForeignValues.replace(map, key, NOT_A_SNAPSHOT, next)
					|| compareAndSetReadable(map, key, expected, next);
		}
		return compareAndSetReadable(map, key, expected, next);
	}

	private static boolean compareAndSetReadable(IMap<String, Object> map, String key, byte @Nullable [] expected,
			byte @Nullable [] next) {
		// Members compare the serialized values, byte for byte, and never decode them.
		if (expected == null) {
			return (next != null) ? putIfAbsent(map, key, next) : !map.containsKey(key);
		}
		return (next != null) ? map.replace(key, expected, next) : map.remove(key, expected);
	}

	private static boolean putIfAbsent(IMap<String, Object> map, String key, byte[] next) {
		try {
			return map.putIfAbsent(key, next) == null;
		}
		catch (HazelcastSerializationException | SecurityException ex) {
			// The value it found instead (and did not replace) could not be deserialized here.
			return false;
		}
	}

	@Override
	public void removeContext(String cache, String key) {
		contexts(cache).delete(key);
	}

	@Override
	public int contextCount(String cache) {
		return contexts(cache).size();
	}

	/**
	 * The first {@code limit} entries by key, as one page of a paging predicate: each member sends at
	 * most {@code limit} entries, never its whole part of the map. When a value of the page cannot be
	 * deserialized here, the page's keys are read, then each value ({@code limit} more round trips).
	 */
	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		List<StoredContext> entries = new ArrayList<>();
		if (limit <= 0) {
			return entries;
		}
		IMap<String, Object> map = contexts(cache);
		try {
			for (Map.Entry<String, Object> entry : map.entrySet(Predicates.<String, Object>pagingPredicate(limit))) {
				if (entries.size() == limit) {
					break;
				}
				entries.add(new StoredContext(entry.getKey(), presentSnapshotBytes(value(entry))));
			}
			return entries;
		}
		catch (HazelcastSerializationException | SecurityException ex) {
			// A value this instance cannot deserialize fails the whole page: read the page's keys, then each value.
			entries.clear();
			for (String key : map.keySet(Predicates.<String, Object>pagingPredicate(limit))) {
				if (entries.size() == limit) {
					break;
				}
				byte[] bytes = snapshotBytes(ForeignValues.read(map, key, NOT_A_SNAPSHOT));
				if (bytes != null) {
					entries.add(new StoredContext(key, bytes));
				}
			}
			return entries;
		}
	}

	/** @return the entry's value, or {@link ForeignValues#UNREADABLE} if it cannot be read or is not a snapshot */
	private static Object value(Map.Entry<String, Object> entry) {
		try {
			Object value = entry.getValue();
			return NOT_A_SNAPSHOT.test(value) ? ForeignValues.UNREADABLE : value;
		}
		catch (HazelcastSerializationException | SecurityException ex) {
			return ForeignValues.UNREADABLE;
		}
	}

	@Override
	public void clearContexts(String cache) {
		contexts(cache).clear();
	}

	/**
	 * Counted by Hazelcast's map statistics on each member, for the entries that member owns: the sum
	 * over the members is the map's total. A client replica counts none (Hazelcast keeps no map
	 * statistics on clients); the members it talks to count them.
	 */
	@Override
	public long contextEvictions(String cache) {
		try {
			return contexts(cache).getLocalMapStats().getEvictionCount();
		}
		catch (UnsupportedOperationException ex) {
			return 0;
		}
	}

	/** A budget stored as something other than a {@code Long} (or unreadable here) starts full again. */
	@Override
	public long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		IMap<String, Object> budgets = this.hazelcast.getMap(this.prefix + ".budgets");
		for (;;) {
			Object read = ForeignValues.read(budgets, budget, NOT_A_LONG);
			if (read == ForeignValues.UNREADABLE) {
				long initial = clamp(maxMilliTokens + deltaMilliTokens, maxMilliTokens);
				if (ForeignValues.replace(budgets, budget, NOT_A_LONG, initial)) {
					LOGGER.log(Level.WARNING, "Budget '" + budget + "' in map '" + this.prefix + ".budgets' was not a Long;"
							+ " it starts full again");
					return initial;
				}
				continue;
			}
			Long stored = (Long) read;
			if (stored == null) {
				long initial = clamp(maxMilliTokens + deltaMilliTokens, maxMilliTokens);
				if (budgets.putIfAbsent(budget, initial) == null) {
					return initial;
				}
				continue;
			}
			long next = clamp(stored + deltaMilliTokens, maxMilliTokens);
			if (next == stored || budgets.replace(budget, stored, next)) {
				return next;
			}
		}
	}

	private static long clamp(long milliTokens, long maxMilliTokens) {
		return Math.max(0, Math.min(maxMilliTokens, milliTokens));
	}

	private ITopic<String> circuits() {
		return this.hazelcast.getTopic(this.prefix + ".circuits");
	}

	@Override
	public void publishCircuit(String message) {
		circuits().publish(message);
	}

	@Override
	public AutoCloseable subscribeCircuits(CircuitMessageReceiver receiver) {
		ITopic<Object> topic = this.hazelcast.getTopic(this.prefix + ".circuits");
		UUID registration = topic.addMessageListener(message -> {
			Object payload;
			try {
				payload = message.getMessageObject();
			}
			catch (RuntimeException ex) {
				// A class missing here or refused by the filter: delivered, and counted, as something that is not text.
				payload = null;
			}
			Member sender = message.getPublishingMember();
			receiver.receive((payload instanceof String text) ? text : null,
					(sender != null) ? sender.getUuid().toString() : dev.retrykit.spi.CircuitSignal.UNREGISTERED_SENDER);
		});
		return () -> topic.removeMessageListener(registration);
	}

	private IMap<String, Object> circuitStates() {
		return this.hazelcast.getMap(this.prefix + ".circuit-states");
	}

	@Override
	public void storeCircuitState(String circuit, @Nullable String state) {
		if (state == null) {
			circuitStates().delete(circuit);
		}
		else {
			circuitStates().set(circuit, state);
		}
	}

	/** @return the stored state, or for a value that is not a {@code String} (or unreadable here) a text saying so */
	@Override
	public @Nullable String circuitState(String circuit) {
		Object state = ForeignValues.read(circuitStates(), circuit, NOT_A_STRING);
		return (state != null) ? state.toString() : null;
	}

	@Override
	public String toString() {
		return "HazelcastClusterEngine[instance=" + this.hazelcast.getName() + ", prefix=" + this.prefix + "]";
	}

}
