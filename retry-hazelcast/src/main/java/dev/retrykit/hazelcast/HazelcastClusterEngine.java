package dev.retrykit.hazelcast;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.IMap;
import com.hazelcast.query.PagingPredicate;
import com.hazelcast.query.Predicates;
import com.hazelcast.topic.ITopic;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ClusterEngine} on Hazelcast 5.5, Community edition, through the application's own
 * {@link HazelcastInstance} (an embedded member or a client).
 *
 * <ul>
 * <li>Stateful contexts: one {@code IMap<String, byte[]>} per instance, {@code <prefix>.contexts.<instance>},
 * holding {@link dev.retrykit.spi.SnapshotCodec encoded snapshots} that it never decodes, updated by compare-and-set
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
 * No entry processor and no CP data structure is used, and only JDK types are stored, so the servers
 * need none of the application's classes. Thread-safe; every operation may throw Hazelcast's exceptions
 * when the instance is shut down or the cluster unreachable (the {@code RetryCluster} that drives the
 * engine bounds the wait and falls back).
 */
public final class HazelcastClusterEngine implements ClusterEngine {

	private static final System.Logger LOGGER = System.getLogger(HazelcastClusterEngine.class.getName());

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

	private IMap<String, byte[]> contexts(String cache) {
		return this.hazelcast.getMap(this.prefix + ".contexts." + cache);
	}

	@Override
	public byte @Nullable [] getContext(String cache, String key) {
		return contexts(cache).get(key);
	}

	@Override
	public boolean compareAndSetContext(String cache, String key, byte @Nullable [] expected, byte @Nullable [] next) {
		IMap<String, byte[]> map = contexts(cache);
		// Members compare the serialized values, byte for byte, and never decode them.
		if (expected == null) {
			return (next != null) ? map.putIfAbsent(key, next) == null : !map.containsKey(key);
		}
		return (next != null) ? map.replace(key, expected, next) : map.remove(key, expected);
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
	 * most {@code limit} entries, never its whole part of the map.
	 */
	@Override
	public List<StoredContext> contexts(String cache, int limit) {
		List<StoredContext> entries = new ArrayList<>();
		if (limit <= 0) {
			return entries;
		}
		PagingPredicate<String, byte[]> firstPage = Predicates.pagingPredicate(limit);
		for (Map.Entry<String, byte[]> entry : contexts(cache).entrySet(firstPage)) {
			if (entries.size() == limit) {
				break;
			}
			entries.add(new StoredContext(entry.getKey(), entry.getValue()));
		}
		return entries;
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

	@Override
	public long exchangeBudget(String budget, long deltaMilliTokens, long maxMilliTokens) {
		IMap<String, Long> budgets = this.hazelcast.getMap(this.prefix + ".budgets");
		for (;;) {
			Long stored = budgets.get(budget);
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
			Object payload = message.getMessageObject();
			Member sender = message.getPublishingMember();
			receiver.receive((payload instanceof String text) ? text : null,
					(sender != null) ? sender.getUuid().toString() : "unknown");
		});
		return () -> topic.removeMessageListener(registration);
	}

	private IMap<String, String> circuitStates() {
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

	@Override
	public @Nullable String circuitState(String circuit) {
		return circuitStates().get(circuit);
	}

	@Override
	public String toString() {
		return "HazelcastClusterEngine[instance=" + this.hazelcast.getName() + ", prefix=" + this.prefix + "]";
	}

}
