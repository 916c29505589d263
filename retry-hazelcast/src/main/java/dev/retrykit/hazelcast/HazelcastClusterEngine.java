package dev.retrykit.hazelcast;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.IMap;
import com.hazelcast.topic.ITopic;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.RetryContextSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ClusterEngine} on Hazelcast 5.5, Community edition, through the application's own
 * {@link HazelcastInstance} (an embedded member or a client).
 *
 * <ul>
 * <li>Stateful contexts: one {@code IMap<String, byte[]>} per instance, {@code <prefix>.contexts.<instance>},
 * holding {@link RetryContextSnapshot#toBytes() encoded snapshots}, updated by compare-and-set
 * ({@code putIfAbsent} / {@code replace(key, old, new)} / {@code remove(key, old)}, in the loop of the
 * cluster's {@code RetryContextCache.update}), with a TTL, an LRU size bound per member and one
 * backup.</li>
 * <li>Budgets: {@code IMap<String, Long>} {@code <prefix>.budgets} of thousandths of a token, updated by
 * compare-and-set, with one backup.</li>
 * <li>Circuit transitions: {@code ITopic<String>} {@code <prefix>.circuits} of {@link CircuitSignal#encode()
 * encoded signals}.</li>
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
	}

	/**
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

	@Override
	public List<Entry> contexts(String cache, int limit) {
		List<Entry> entries = new ArrayList<>();
		for (Map.Entry<String, byte[]> entry : contexts(cache).entrySet()) {
			if (entries.size() == limit) {
				break;
			}
			entries.add(new Entry(entry.getKey(), RetryContextSnapshot.fromBytes(entry.getValue())));
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
	public void publishCircuit(CircuitSignal signal) {
		circuits().publish(signal.encode());
	}

	@Override
	public AutoCloseable subscribeCircuits(Consumer<CircuitSignal> consumer) {
		ITopic<String> topic = circuits();
		UUID registration = topic.addMessageListener(message -> {
			try {
				consumer.accept(CircuitSignal.decode(message.getMessageObject()));
			}
			catch (RuntimeException ex) {
				LOGGER.log(Level.WARNING, "Ignoring a circuit signal that could not be applied: " + message.getMessageObject(), ex);
			}
		});
		return () -> topic.removeMessageListener(registration);
	}

	@Override
	public String toString() {
		return "HazelcastClusterEngine[instance=" + this.hazelcast.getName() + ", prefix=" + this.prefix + "]";
	}

}
