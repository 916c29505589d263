package dev.retrykit.redis;

/**
 * The names of the engine's keys and channel under one prefix. An instance's keys carry its name as
 * their Redis Cluster hash tag, {@code <prefix>:{<instance>}:…}, with {@code %}, <code>{</code>,
 * <code>}</code> and {@code :} in the name escaped as {@code %25}, {@code %7B}, {@code %7D} and
 * {@code %3A}: a name can then neither end the hash tag early nor make one instance's key another's
 * (instance <code>a}:context:b</code> with key {@code c} and instance {@code a} with key
 * <code>b}:context:c</code> are two keys), and the names that have none of those characters, which are
 * all the usual ones, are kept as they are. Immutable and thread-safe.
 */
final class RedisKeys {

	private final String prefix;

	RedisKeys(String prefix) {
		this.prefix = prefix;
	}

	/** @return {@code name} with {@code %}, <code>{</code>, <code>}</code> and {@code :} percent-escaped */
	static String escape(String name) {
		StringBuilder escaped = null;
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			String replacement = switch (c) {
				case '%' -> "%25";
				case '{' -> "%7B";
				case '}' -> "%7D";
				case ':' -> "%3A";
				default -> null;
			};
			if (replacement != null && escaped == null) {
				escaped = new StringBuilder(name.length() + 8).append(name, 0, i);
			}
			if (escaped != null) {
				if (replacement != null) {
					escaped.append(replacement);
				}
				else {
					escaped.append(c);
				}
			}
		}
		return (escaped != null) ? escaped.toString() : name;
	}

	/** The start of the keys of an instance's contexts, with the instance's hash tag. */
	String contextKeyStart(String instance) {
		return this.prefix + ":{" + escape(instance) + "}:context:";
	}

	String context(String instance, String key) {
		return contextKeyStart(instance) + key;
	}

	/** The sorted set of an instance's context keys by last use. */
	String index(String instance) {
		return this.prefix + ":{" + escape(instance) + "}:contexts";
	}

	/** The hash of an instance's evictions by member. */
	String evictions(String instance) {
		return this.prefix + ":{" + escape(instance) + "}:evictions";
	}

	String members() {
		return this.prefix + ".members";
	}

	String budgets() {
		return this.prefix + ".budgets";
	}

	String circuitStates() {
		return this.prefix + ".circuit-states";
	}

	String circuits() {
		return this.prefix + ".circuits";
	}

	String prefix() {
		return this.prefix;
	}

}
