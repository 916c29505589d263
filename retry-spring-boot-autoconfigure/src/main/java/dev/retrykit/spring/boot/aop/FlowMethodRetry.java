package dev.retrykit.spring.boot.aop;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

import org.springframework.core.ReactiveAdapter;

/**
 * Retries a method that returns a Kotlin {@code Flow} through the reactive variant that retries a
 * {@code Flux}, so that a {@code Flow} is retried exactly as a {@code Flux} is: each attempt collects
 * it again, its elements streamed as they arrive. Spring's {@link ReactiveAdapter} for {@code Flow} (registered by Spring when
 * kotlinx-coroutines-reactor is present) turns the method's {@code Flow} into a {@code Flux} on the
 * way in and the retried {@code Flux} back into a {@code Flow} on the way out; a recover method's
 * {@code Flow} goes through {@link #toFlux}. Refers to no Kotlin type. Thread-safe.
 * @param adapter Spring's adapter of the method's return type
 * @param flux the reactive variant that retries a {@code Flux}
 */
record FlowMethodRetry(ReactiveAdapter adapter, MethodRetry flux) implements MethodRetry {

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object retried = this.flux.invoke(new AsFlux(invocation, this.adapter));
		return (retried != null) ? this.adapter.fromPublisher((Publisher<?>) retried) : null;
	}

	/**
	 * @param adapter Spring's adapter of a return type
	 * @param result a value of that type, a publisher, or {@code null}
	 * @return the value as a {@code Flux}; a publisher or {@code null} unchanged
	 */
	static @Nullable Object toFlux(ReactiveAdapter adapter, @Nullable Object result) {
		return (result == null || result instanceof Publisher<?>) ? result : Flux.from(adapter.toPublisher(result));
	}

	/**
	 * The intercepted call as the reactive variant expects it: proceeding returns a {@code Flux}. Each
	 * {@link #proceed} runs the rest of the chain from where the retry interceptor was entered, so it
	 * stays correct whether the variant proceeds once or once per attempt.
	 */
	private static final class AsFlux extends ForwardingMethodInvocation {

		private final ReactiveAdapter adapter;

		private final MethodInvocation start;

		AsFlux(MethodInvocation invocation, ReactiveAdapter adapter) {
			super(invocation);
			this.adapter = adapter;
			this.start = AttemptInvoker.start(invocation);
		}

		@Override
		public @Nullable Object proceed() throws Throwable {
			return toFlux(this.adapter, this.start.proceed());
		}

	}

}
