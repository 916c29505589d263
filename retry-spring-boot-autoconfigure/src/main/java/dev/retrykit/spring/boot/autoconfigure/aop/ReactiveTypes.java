package dev.retrykit.spring.boot.autoconfigure.aop;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Reactor's types; loaded only when Reactor is on the classpath. */
final class ReactiveTypes {

	private ReactiveTypes() {
	}

	static boolean isReactive(Class<?> type) {
		return Mono.class.isAssignableFrom(type) || Flux.class.isAssignableFrom(type);
	}

	static boolean isFlux(Class<?> type) {
		return Flux.class.isAssignableFrom(type);
	}

}
