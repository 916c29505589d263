package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;

/**
 * A method's signature as its author wrote it. For a Kotlin {@code suspend fun} the compiler adds a
 * trailing {@code Continuation} parameter and makes the JVM return type {@code Object}; neither is the
 * user's, so recover methods are matched, and arguments shown, without them: the parameters lose the
 * {@code Continuation} and the return type is the Kotlin one (Spring's {@link MethodParameter} reads
 * it through kotlin-reflect; {@code Unit} is {@code void}). Any other method is unchanged.
 *
 * <p>Uses only Spring's {@link KotlinDetector}, which needs no Kotlin class, so it is safe in an
 * application without Kotlin (where no method is suspending). Stateless and thread-safe.
 */
final class DeclaredSignature {

	private DeclaredSignature() {
	}

	/**
	 * @param method a method
	 * @return whether it is a Kotlin {@code suspend fun}
	 */
	static boolean isSuspending(Method method) {
		return KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method);
	}

	/**
	 * @param method a method
	 * @return its parameter types, without the {@code Continuation} of a suspend function
	 */
	static Class<?>[] parameterTypes(Method method) {
		Class<?>[] types = method.getParameterTypes();
		return isSuspending(method) ? Arrays.copyOf(types, types.length - 1) : types;
	}

	/**
	 * @param method a method
	 * @return its return type; for a suspend function the Kotlin one, or {@code Object} without
	 * kotlin-reflect
	 */
	static Class<?> returnType(Method method) {
		return isSuspending(method) ? new MethodParameter(method, -1).getParameterType() : method.getReturnType();
	}

	/**
	 * @param method a method
	 * @param arguments the arguments of a call
	 * @return the caller's {@code Continuation} of a suspend function's call, else {@code null}
	 */
	static @Nullable Object continuation(Method method, @Nullable Object[] arguments) {
		return (isSuspending(method) && arguments.length > 0) ? arguments[arguments.length - 1] : null;
	}

}
