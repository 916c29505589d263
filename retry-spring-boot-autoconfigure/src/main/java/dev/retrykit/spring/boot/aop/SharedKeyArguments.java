package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Checks, when the cluster shares stateful contexts ({@code retry.cluster.enabled}), that the default key of a
 * stateful method can match across replicas: the cluster shares a key in its {@code toString()} form, and an
 * argument whose class keeps {@code Object.toString()} ({@code Order@1b6d3586}) differs on every replica and for
 * every call, so the count would never continue anywhere.
 *
 * <ul>
 * <li>A parameter whose declared type is a concrete class that inherits {@code Object.toString()} fails startup,
 * naming the method and the parameter: every argument of exactly that type breaks sharing.</li>
 * <li>A parameter declared as {@code Object}, or as an interface or abstract class outside the JDK, is logged as a
 * warning naming the method and the parameter: its arguments' classes decide, which startup cannot know.</li>
 * <li>Primitives, enums, records, JDK types ({@code String}, boxed primitives, {@code java.time}, {@code UUID},
 * collections), classes that override {@code toString()}, and arrays of those pass.</li>
 * </ul>
 * A {@code key} expression replaces the default key, so a method that has one is not checked. Stateless.
 */
final class SharedKeyArguments {

	private static final Log LOGGER = LogFactory.getLog(SharedKeyArguments.class);

	private SharedKeyArguments() {
	}

	/**
	 * @param method a stateful method without a {@code key} expression, whose contexts the cluster shares
	 * @throws RetryableMethodException if a parameter's type certainly has no value-based {@code toString()}
	 */
	static void check(Method method) {
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			Verdict verdict = verdict(types[i]);
			if (verdict == Verdict.IDENTITY) {
				throw new RetryableMethodException(method, "its default stateful key is shared by the cluster in its "
						+ "toString() form, but parameter " + i + " (" + types[i].getName() + ") inherits Object.toString(), "
						+ "which differs on every replica and for every call, so its count would never continue",
						"Give @Retryable a key expression over values that are the same on every replica (e.g. key = "
								+ "\"#p" + i + ".id\"), or override toString() in " + types[i].getName()
								+ " to return its value.", null);
			}
			if (verdict == Verdict.UNKNOWN) {
				int index = i;
				LOGGER.warn("Stateful @Retryable method " + RetryableMethodException.describe(method)
						+ " uses the default key, which the cluster shares in its toString() form, but parameter " + index
						+ " is declared as " + types[index].getName() + ": an argument whose class keeps "
						+ "Object.toString() never continues its count on another replica. Give @Retryable a key "
						+ "expression to be sure.");
			}
		}
	}

	enum Verdict {

		/** The value's text is the same on every replica. */
		VALUE,

		/** The declared type's text is {@code Class@hash}: never the same twice. */
		IDENTITY,

		/** The argument's runtime class decides. */
		UNKNOWN

	}

	static Verdict verdict(Class<?> type) {
		if (type.isPrimitive() || type.isEnum() || type.isRecord()) {
			return Verdict.VALUE;
		}
		if (type.isArray()) {
			return verdict(type.getComponentType());
		}
		if (type == Object.class) {
			return Verdict.UNKNOWN;
		}
		if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
			return isJdk(type) ? Verdict.VALUE : Verdict.UNKNOWN;
		}
		return (toStringDeclarer(type) == Object.class) ? Verdict.IDENTITY : Verdict.VALUE;
	}

	private static @Nullable Class<?> toStringDeclarer(Class<?> type) {
		try {
			return type.getMethod("toString").getDeclaringClass();
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	/** JDK interfaces and abstract classes used as parameters are value-like: collections, CharSequence, Number, Temporal. */
	private static boolean isJdk(Class<?> type) {
		String name = type.getName();
		return name.startsWith("java.") || name.startsWith("javax.");
	}

}
