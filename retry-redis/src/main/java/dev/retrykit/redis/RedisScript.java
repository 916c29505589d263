package dev.retrykit.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * One Lua script, run atomically on the server in one round trip: by {@code EVALSHA}, and by
 * {@code EVAL} (which also caches it again) when the server answers {@code NOSCRIPT} because it
 * restarted or its script cache was flushed. Immutable and thread-safe.
 */
final class RedisScript {

	private final String name;

	private final String source;

	private final String sha;

	RedisScript(String name, String source) {
		this.name = name;
		this.source = source;
		this.sha = sha1(source);
	}

	/**
	 * @param commands the connection's commands
	 * @param output how to read the reply
	 * @param keys every key the script touches by name (all in one hash slot on Redis Cluster)
	 * @param args the arguments, as bytes
	 * @return the reply
	 */
	<T> T run(RedisClusterCommands<String, byte[]> commands, ScriptOutputType output, String[] keys, byte[]... args) {
		try {
			return commands.evalsha(this.sha, output, keys, args);
		}
		catch (RedisNoScriptException ex) {
			return commands.eval(this.source, output, keys, args);
		}
	}

	private static String sha1(String source) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1, which every JDK has, is missing", ex);
		}
	}

	@Override
	public String toString() {
		return "RedisScript[" + this.name + ", sha=" + this.sha + "]";
	}

}
