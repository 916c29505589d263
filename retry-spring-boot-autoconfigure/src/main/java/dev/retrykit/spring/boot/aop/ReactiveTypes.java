package dev.retrykit.spring.boot.aop;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.util.ClassUtils;

/** Reactor's types; loaded only when Reactor is on the classpath. */
final class ReactiveTypes {

	private static final boolean OPERATOR_PRESENT = ClassUtils.isPresent("dev.retrykit.reactor.RetryOperator",
			ReactiveTypes.class.getClassLoader());

	private ReactiveTypes() {
	}

	/**
	 * @param type a method's return type
	 * @return whether it is a {@code Mono} or a {@code Flux}
	 * @throws IllegalStateException if it is, but retry-reactor, which retries them, is missing
	 */
	static boolean isFlux(Class<?> type) {
		return Flux.class.isAssignableFrom(type);
	}

	static boolean isReactive(Class<?> type) {
		boolean reactive = Mono.class.isAssignableFrom(type) || Flux.class.isAssignableFrom(type);
		if (reactive && !OPERATOR_PRESENT) {
			throw new IllegalStateException("A @Retryable method returns " + type.getSimpleName()
					+ ", which needs dev.retrykit:retry-reactor on the classpath (the starter brings it); add it");
		}
		return reactive;
	}

}
