package dev.retrykit.redis;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * Keeps the engine's sorted sets and hashes usable when something else wrote another type at their key
 * ({@code SET retrykit.members x}): an operation that fails with {@code WRONGTYPE} has the structures
 * it uses checked, those of the wrong type deleted ({@link EngineScripts#REPAIR}, which the next write
 * recreates), and is run once more. Each repaired key is logged once, as a warning naming the key and
 * what it held; what the structure held is lost (a budget starts full again, a members set fills again
 * with the next heartbeats, an index is rebuilt by the next writes). Without this, one {@code SET}
 * would take every replica off shared state until someone deleted the key by hand. Thread-safe.
 */
final class StructureRepair {

	private static final System.Logger LOGGER = System.getLogger(RedisEngine.class.getName());

	/** How many repaired keys are logged; past them, repairs are silent (the keys come from the prefix and instance names). */
	private static final int LOGGED_KEYS = 256;

	private final RedisClusterCommands<String, byte[]> commands;

	private final Set<String> logged = ConcurrentHashMap.newKeySet();

	StructureRepair(RedisClusterCommands<String, byte[]> commands) {
		this.commands = commands;
	}

	/** One of the engine's structures: its key and the Redis type it must have. */
	record Structure(String key, String type) {

		static Structure sortedSet(String key) {
			return new Structure(key, "zset");
		}

		static Structure hash(String key) {
			return new Structure(key, "hash");
		}

	}

	/**
	 * Runs an operation; if Redis answers {@code WRONGTYPE}, repairs the structures and runs it once more.
	 * @param operation the operation
	 * @param structures the sorted sets and hashes it uses
	 * @return what the operation returned
	 * @throws RuntimeException what the operation threw, other than {@code WRONGTYPE}, or what it threw again
	 */
	<T> T run(Supplier<T> operation, Structure... structures) {
		try {
			return operation.get();
		}
		catch (RedisCommandExecutionException ex) {
			if (!isWrongType(ex)) {
				throw ex;
			}
			repair(structures);
			return operation.get();
		}
	}

	private static boolean isWrongType(RedisCommandExecutionException ex) {
		String message = ex.getMessage();
		return message != null && message.startsWith("WRONGTYPE");
	}

	private void repair(Structure... structures) {
		String[] keys = new String[structures.length];
		byte[][] types = new byte[structures.length][];
		for (int i = 0; i < structures.length; i++) {
			keys[i] = structures[i].key();
			types[i] = structures[i].type().getBytes(StandardCharsets.US_ASCII);
		}
		List<Object> repaired = EngineScripts.REPAIR.run(this.commands, ScriptOutputType.MULTI, keys, types);
		for (int i = 0; i + 1 < repaired.size(); i += 2) {
			String key = text(repaired.get(i));
			if (this.logged.size() < LOGGED_KEYS && this.logged.add(key)) {
				LOGGER.log(Level.WARNING, "Redis key '" + key + "' held a " + text(repaired.get(i + 1)) + " where retrykit"
						+ " keeps a " + type(structures, key) + "; deleted it, so that shared retry state works again (it is"
						+ " made anew; whatever wrote it can write retrykit's keys: see the README on Redis ACL users)."
						+ " Logged once per key.");
			}
		}
	}

	private static String type(Structure[] structures, String key) {
		for (Structure structure : structures) {
			if (structure.key().equals(key)) {
				return structure.type();
			}
		}
		return "structure";
	}

	private static String text(Object reply) {
		return (reply instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
	}

}
