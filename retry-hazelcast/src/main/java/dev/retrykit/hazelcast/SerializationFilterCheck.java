package dev.retrykit.hazelcast;

import java.lang.System.Logger.Level;

import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.core.HazelcastInstance;
import org.jspecify.annotations.Nullable;

/**
 * The Java serialization filter retrykit recommends, and the check that warns, once per engine, when the
 * application's Hazelcast instance has none that would stop a member or client of its cluster from making
 * this replica run the {@code readObject} of an arbitrary class. Stateless and thread-safe.
 */
final class SerializationFilterCheck {

	private static final System.Logger LOGGER = System.getLogger(HazelcastClusterEngine.class.getName());

	/**
	 * What the engine stores, none of which Hazelcast reads through Java serialization (it has serializers
	 * of its own for them; listed because Hazelcast applies no allow-list at all when it is empty), and the
	 * {@code Properties} (with its superclass) that the dynamic configuration of its maps carries.
	 */
	static final String[] ENGINE_CLASSES = { "java.lang.String", "java.lang.Long", "[B", "java.util.Properties",
			"java.util.Hashtable" };

	/**
	 * Hazelcast's own classes: a member answers an operation that failed (a partition migrating while a member
	 * left, say) with its exception, Java-serialized; refused, the answer is lost and the caller waits out
	 * Hazelcast's invocation timeout.
	 */
	static final String[] HAZELCAST_PREFIXES = { "com.hazelcast." };

	/** The JDK types such an exception is made of and may carry as its cause. */
	static final String[] EXCEPTION_CLASSES = { "java.lang.Throwable", "java.lang.Exception", "java.lang.RuntimeException",
			"java.lang.IllegalStateException", "java.lang.IllegalArgumentException", "java.lang.NullPointerException",
			"java.lang.UnsupportedOperationException", "java.lang.StackTraceElement", "[Ljava.lang.StackTraceElement;",
			"java.util.Collections$EmptyList", "java.util.Collections$UnmodifiableRandomAccessList",
			"java.util.Collections$UnmodifiableList", "java.util.Collections$UnmodifiableCollection", "java.util.ArrayList",
			"java.util.concurrent.TimeoutException", "java.util.concurrent.ExecutionException",
			"java.util.concurrent.CancellationException", "java.io.IOException" };

	private SerializationFilterCheck() {
	}

	static JavaSerializationFilterConfig recommended() {
		return new JavaSerializationFilterConfig().setDefaultsDisabled(true)
			.setWhitelist(new ClassFilter().addClasses(ENGINE_CLASSES).addClasses(EXCEPTION_CLASSES)
				.addPrefixes(HAZELCAST_PREFIXES));
	}

	/** Logs a warning if the instance's filter (a member's, or a client's own) admits what it should not. */
	static void warnIfMissing(HazelcastInstance hazelcast) {
		JavaSerializationFilterConfig filter;
		try {
			filter = hazelcast.getConfig().getSerializationConfig().getJavaSerializationFilterConfig();
		}
		catch (UnsupportedOperationException ex) {
			LOGGER.log(Level.INFO, "Cannot read the Java serialization filter of Hazelcast instance '" + hazelcast.getName()
					+ "'; make sure it has one (HazelcastClusterEngine.javaSerializationFilter())");
			return;
		}
		String problem = problem(filter);
		if (problem != null) {
			LOGGER.log(Level.WARNING, "Hazelcast instance '" + hazelcast.getName() + "' " + problem + ": any member or client"
					+ " of its cluster can make this replica deserialize any class on its class path (and run its readObject)"
					+ " when it reads retrykit's maps or topic. retrykit needs no Java serialization: set"
					+ " config.getSerializationConfig().setJavaSerializationFilterConfig(HazelcastClusterEngine.javaSerializationFilter()),"
					+ " adding the classes your application itself keeps in Hazelcast (README: Java deserialization filter)");
		}
	}

	/** @return what is wrong with the filter, or {@code null} if it admits only what it lists */
	static @Nullable String problem(@Nullable JavaSerializationFilterConfig filter) {
		if (filter == null) {
			return "has no Java serialization filter";
		}
		if (!filter.isDefaultsDisabled()) {
			return "keeps the defaults of its Java serialization filter, which admit every class whose name starts with"
					+ " 'java' (javax.* included) or 'com.hazelcast.'";
		}
		if (filter.getWhitelist().isEmpty()) {
			return "has a Java serialization filter with an empty whitelist, with which Hazelcast admits every class"
					+ " its blacklist does not name";
		}
		return null;
	}

}
