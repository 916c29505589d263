package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Registers, at AOT processing time, the reflection hints a native image needs for the beans with
 * {@code @Retryable}, {@code @Failback} or {@code @Recover} methods: the retried methods (resolved
 * through reflection on the first call), the {@code @Recover} methods (invoked reflectively), the
 * exception types named in {@code retryFor}/{@code noRetryFor}/{@code notRecoverable}, and the types the SpEL of
 * {@code key} and {@code exceptionExpression} reads properties of (the method's parameter types, the
 * exception types). Registered in {@code META-INF/spring/aot.factories}; it plays no part at run time.
 * Stateless and thread-safe.
 */
final class RetryableBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> userClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		Method[] methods;
		try {
			methods = ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS);
		}
		catch (IllegalStateException | LinkageError ex) {
			// A class whose methods name a type missing at build time: not ours to fail the build for.
			return null;
		}
		List<Method> retried = new ArrayList<>();
		List<Method> recover = new ArrayList<>();
		for (Method method : methods) {
			if (AnnotatedElementUtils.hasAnnotation(method, Recover.class)) {
				recover.add(method);
			}
			else if (RetryableAnnotations.findFailback(method) != null || RetryableAnnotations.find(method, userClass) != null) {
				retried.add(method);
			}
		}
		if (retried.isEmpty() && recover.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> register(generationContext.getRuntimeHints().reflection(), userClass,
				retried, recover);
	}

	private static void register(ReflectionHints hints, Class<?> userClass, List<Method> retried, List<Method> recover) {
		Set<Class<?>> spelTypes = new LinkedHashSet<>();
		for (Method method : retried) {
			hints.registerMethod(method, ExecutableMode.INVOKE);
			Retryable retryable = RetryableAnnotations.find(method, userClass);
			Failback failback = RetryableAnnotations.findFailback(method);
			if (retryable != null) {
				for (Class<?> type : retryable.retryFor()) {
					hints.registerType(type);
				}
				for (Class<?> type : retryable.noRetryFor()) {
					hints.registerType(type);
				}
				for (Class<?> type : retryable.notRecoverable()) {
					hints.registerType(type);
				}
				if (!retryable.exceptionExpression().isEmpty()) {
					spelTypes.addAll(List.of(retryable.retryFor()));
					spelTypes.addAll(List.of(method.getExceptionTypes()));
				}
			}
			if ((retryable != null && !retryable.key().isEmpty()) || (failback != null && !failback.key().isEmpty())) {
				spelTypes.addAll(List.of(method.getParameterTypes()));
			}
		}
		for (Method method : recover) {
			hints.registerMethod(method, ExecutableMode.INVOKE);
		}
		for (Class<?> type : spelTypes) {
			if (!type.isPrimitive()) {
				// SpEL reads properties through public getters and calls public methods.
				hints.registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS);
			}
		}
	}

}
