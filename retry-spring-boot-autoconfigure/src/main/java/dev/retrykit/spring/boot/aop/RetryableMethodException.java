package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.FailureAnalyzedException;

/**
 * A {@code @Retryable} or {@code @Recover} declaration that cannot work: a recover method that does
 * not exist, does not fit or is ambiguous, an invalid inline attribute, or an unsupported return type.
 * Thrown at startup; the failure analysis names the method, the problem and what to change.
 * Serializable: the method itself is not kept by serialization, its description is.
 */
public class RetryableMethodException extends FailureAnalyzedException {

	private static final long serialVersionUID = 1L;

	/** The annotated method; a {@link Method} is not serializable, so a deserialized copy has none. */
	private final transient @Nullable Method method;

	/** The annotated method as {@code com.example.Type.method(String, int)}, kept by serialization. */
	private final String methodDescription;

	/**
	 * @param method the annotated method
	 * @param problem what is wrong
	 * @param action what to change
	 * @param cause the underlying failure, or {@code null}
	 */
	public RetryableMethodException(Method method, String problem, String action, @Nullable Throwable cause) {
		this("@Retryable", method, problem, action, cause);
	}

	/**
	 * @param annotation the annotation whose declaration is invalid, e.g. {@code @Failback}
	 * @param method the annotated method
	 * @param problem what is wrong
	 * @param action what to change
	 * @param cause the underlying failure, or {@code null}
	 */
	public RetryableMethodException(String annotation, Method method, String problem, String action,
			@Nullable Throwable cause) {
		// Boot's constructor with a cause takes a non-null one.
		super("Invalid " + annotation + " method " + describe(method) + ": " + problem, action);
		if (cause != null) {
			initCause(cause);
		}
		this.method = method;
		this.methodDescription = describe(method);
	}

	/**
	 * @return the annotated method, or {@code null} on a copy of this exception that was deserialized (a
	 * {@link Method} cannot be serialized; {@link #getMethodDescription()} can)
	 */
	public @Nullable Method getMethod() {
		return this.method;
	}

	/** @return the annotated method as {@code com.example.Type.method(String, int)}; kept by serialization */
	public String getMethodDescription() {
		return this.methodDescription;
	}

	static String describe(Method method) {
		StringBuilder text = new StringBuilder(method.getDeclaringClass().getName()).append('.')
			.append(method.getName()).append('(');
		Class<?>[] types = DeclaredSignature.parameterTypes(method);
		for (int i = 0; i < types.length; i++) {
			text.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return text.append(')').toString();
	}

}
