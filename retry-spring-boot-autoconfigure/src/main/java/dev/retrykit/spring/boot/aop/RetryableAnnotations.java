package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds the {@link Retryable} that applies to a method (on the method, else on its class, public methods
 * only) and the {@link Failback} on a method.
 */
final class RetryableAnnotations {

	private RetryableAnnotations() {
	}

	/**
	 * @param method the most specific method (the implementation in the bean's class)
	 * @param userClass the bean's class
	 * @return the annotation that applies, or {@code null}
	 */
	static @Nullable Retryable find(Method method, Class<?> userClass) {
		Retryable onMethod = AnnotatedElementUtils.findMergedAnnotation(method, Retryable.class);
		if (onMethod != null) {
			return onMethod;
		}
		if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())
				|| method.getDeclaringClass() == Object.class
				|| AnnotatedElementUtils.hasAnnotation(method, Recover.class)) {
			return null;
		}
		return AnnotatedElementUtils.findMergedAnnotation(userClass, Retryable.class);
	}

	/**
	 * @param method the most specific method
	 * @return its {@link Failback}, or {@code null}
	 */
	static @Nullable Failback findFailback(Method method) {
		return AnnotatedElementUtils.findMergedAnnotation(method, Failback.class);
	}

	/**
	 * @param method the most specific method
	 * @param userClass the bean's class
	 * @return whether the method is retried by an annotation
	 */
	static boolean isAnnotated(Method method, Class<?> userClass) {
		return findFailback(method) != null || find(method, userClass) != null;
	}

}
