package dev.retrykit.cluster;

import java.io.ObjectInputFilter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Which classes Java deserialization of a context attribute may create: the classes and packages the
 * application allowed, and the JDK value types that travel in any case. The application's entries are
 * checked when the list is made: none may cover the JDK ({@code java.}, {@code javax.}, {@code jdk.},
 * {@code sun.}, {@code com.sun.}), whose serializable classes include deserialization gadgets, nor be a
 * one-segment package prefix ({@code org.*}, {@code com.*}), which admits every library under it; and
 * proxies, {@code java.rmi.*}, {@code SignedObject} and {@code SerializedLambda} are refused whatever
 * the list says. Decoding consults the list by name before any class is loaded
 * ({@link AllowListObjectInputStream}), and again through the stream's {@link ObjectInputFilter},
 * which also bounds depth, references, array lengths and bytes. Immutable and thread-safe.
 */
final class AttributeAllowList {

	/** Classes and package prefixes whose instances Java deserialization may always create. */
	private static final List<String> JDK_VALUE_CLASSES = List.of("java.lang.String", "java.lang.Boolean",
			"java.lang.Byte", "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
			"java.lang.Double", "java.lang.Character", "java.lang.Number", "java.lang.Enum", "java.lang.Record",
			"java.math.BigInteger", "java.math.BigDecimal", "java.util.UUID", "java.util.ArrayList",
			"java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap",
			"java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet", "java.util.CollSer",
			// What a CollSer (List.of, Set.of, Map.of) resolves to: the filter sees the resolved object too.
			"java.util.ImmutableCollections$List12", "java.util.ImmutableCollections$ListN",
			"java.util.ImmutableCollections$Set12", "java.util.ImmutableCollections$SetN",
			"java.util.ImmutableCollections$Map1", "java.util.ImmutableCollections$MapN");

	/**
	 * Array component types admitted for the arrays the JDK's collections allocate while they read
	 * themselves ({@code ArrayList} an {@code Object[]}, {@code HashMap} a {@code Map.Entry[]}); the
	 * array's elements are checked one by one.
	 */
	private static final List<String> ARRAY_COMPONENTS = List.of("java.lang.Object", "java.util.Map$Entry");

	/** Packages whose classes may never be allowed: the JDK's. */
	private static final List<String> JDK_PACKAGES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");

	/** Classes and packages refused whatever the list says: known gadgets, and what reaches the network. */
	private static final List<String> NEVER = List.of("java.lang.reflect.Proxy", "java.rmi.", "java.security.SignedObject",
			"java.lang.invoke.SerializedLambda", "jdk.proxy", "com.sun.proxy.");

	private final List<String> classes;

	private final List<String> prefixes;

	private AttributeAllowList(List<String> classes, List<String> prefixes) {
		this.classes = classes;
		this.prefixes = prefixes;
	}

	/**
	 * Checks and keeps the application's entries.
	 * @param entries class names and package prefixes ending in {@code .*}
	 * @return the allow-list
	 * @throws IllegalArgumentException naming the first entry refused and why
	 */
	static AttributeAllowList of(Collection<String> entries) {
		List<String> classes = new ArrayList<>();
		List<String> prefixes = new ArrayList<>();
		for (String entry : entries) {
			Objects.requireNonNull(entry, "an allowed class must not be null");
			String name = entry.strip();
			boolean prefix = name.endsWith(".*");
			String dotted = prefix ? name.substring(0, name.length() - 2) : name;
			if (!SnapshotValues.isJavaName(dotted)) {
				throw invalid(entry, "expected a class name (com.example.Order) or a package prefix ending in .* (com.example.*)");
			}
			String covered = prefix ? dotted + "." : dotted;
			if (never(covered) || never(dotted + ".")) {
				throw invalid(entry, "proxies, java.rmi.*, SignedObject and SerializedLambda are never allowed: deserializing"
						+ " them opens connections, reads objects past the filter or runs handlers");
			}
			if (startsWithAny(covered, JDK_PACKAGES)) {
				throw invalid(entry, "the JDK's packages (java., javax., jdk., sun., com.sun.) may not be allowed: the JDK"
						+ " value types that are safe (String, boxed primitives, java.time, BigDecimal, UUID, lists, sets and"
						+ " maps of them) always travel, and the JDK's other serializable classes include deserialization gadgets");
			}
			if (prefix && dotted.indexOf('.') < 0) {
				throw invalid(entry, "a one-segment package prefix admits every library under it; list your own package"
						+ " (com.example.orders.*) or classes");
			}
			if (prefix) {
				prefixes.add(covered);
			}
			else {
				classes.add(name);
			}
		}
		return new AttributeAllowList(List.copyOf(classes), List.copyOf(prefixes));
	}

	private static IllegalArgumentException invalid(String entry, String why) {
		return new IllegalArgumentException("Invalid allowed attribute class '" + entry + "': " + why);
	}

	private static boolean never(String name) {
		return startsWithAny(name, NEVER);
	}

	private static boolean startsWithAny(String name, List<String> prefixes) {
		for (String prefix : prefixes) {
			if (name.startsWith(prefix)) {
				return true;
			}
		}
		return false;
	}

	/** {@return whether the application allowed that class} */
	boolean allows(String className) {
		return this.classes.contains(className) || startsWithAny(className, this.prefixes);
	}

	/**
	 * Whether Java deserialization may create (or load, to create an array of) a class of that name,
	 * decided by the name alone, before any class loader is asked for it.
	 * @param name a class name as {@link Class#getName()} gives it, arrays included ({@code [Ljava.lang.Object;})
	 */
	boolean admits(String name) {
		int dimensions = 0;
		while (dimensions < name.length() && name.charAt(dimensions) == '[') {
			dimensions++;
		}
		if (dimensions == 0) {
			return admitsClass(name);
		}
		if (dimensions > SnapshotCodec.MAX_DEPTH || dimensions == name.length()) {
			return false;
		}
		String component = name.substring(dimensions);
		if (component.length() == 1) {
			// A primitive array: "[I", "[B", ...
			return "ZBCSIJFD".contains(component);
		}
		if (component.charAt(0) != 'L' || !component.endsWith(";")) {
			return false;
		}
		String element = component.substring(1, component.length() - 1);
		return ARRAY_COMPONENTS.contains(element) || admitsClass(element);
	}

	private boolean admitsClass(String name) {
		if (never(name)) {
			return false;
		}
		return JDK_VALUE_CLASSES.contains(name) || name.startsWith("java.time.") || allows(name);
	}

	/** The filter: the same names, and the bounds of a serialized graph. */
	ObjectInputFilter.Status check(ObjectInputFilter.FilterInfo info) {
		if (info.depth() > SnapshotCodec.MAX_DEPTH || info.references() > 1_000 || info.streamBytes() > SnapshotCodec.MAX_BYTES) {
			return ObjectInputFilter.Status.REJECTED;
		}
		Class<?> type = info.serialClass();
		if (type == null) {
			return ObjectInputFilter.Status.ALLOWED;
		}
		if (info.arrayLength() > maxArrayLength(type)) {
			return ObjectInputFilter.Status.REJECTED;
		}
		return (!java.lang.reflect.Proxy.isProxyClass(type) && admits(type.getName())) ? ObjectInputFilter.Status.ALLOWED
				: ObjectInputFilter.Status.REJECTED;
	}

	/**
	 * The longest array of that type the stream may allocate, before its elements are read: an array of
	 * primitives of at most {@link SnapshotCodec#MAX_BYTES} bytes, one of references of at most
	 * {@link SnapshotCodec#MAX_ELEMENTS} elements (the bound the tagged form keeps too).
	 */
	private static long maxArrayLength(Class<?> type) {
		Class<?> component = type.getComponentType();
		if (component == null || !component.isPrimitive()) {
			return SnapshotCodec.MAX_ELEMENTS;
		}
		int size = (component == long.class || component == double.class) ? 8
				: (component == int.class || component == float.class) ? 4
				: (component == char.class || component == short.class) ? 2 : 1;
		return SnapshotCodec.MAX_BYTES / size;
	}

	@Override
	public String toString() {
		return "allowed=" + this.classes + ", prefixes=" + this.prefixes;
	}

}
