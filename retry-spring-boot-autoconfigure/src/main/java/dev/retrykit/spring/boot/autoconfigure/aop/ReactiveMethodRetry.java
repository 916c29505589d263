package dev.retrykit.spring.boot.autoconfigure.aop;

import dev.retrykit.RetryTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Retries a method that returns a {@link Mono} or a {@link Flux}, through
 * {@link RetryTemplate#executeAsync}: the method is called once to assemble the publisher; each attempt
 * subscribes to it again (Reactor's own {@code retry} semantics: a cold publisher such as a WebClient
 * exchange makes a new request per subscription). Nothing runs before subscription, and cancelling
 * the subscription cancels the pending retry. A {@code Flux} is retried as a whole: each attempt
 * collects its elements, which are emitted once an attempt completes, so use it for finite streams.
 * Loaded only when Reactor is on the classpath. Thread-safe.
 */
final class ReactiveMethodRetry implements MethodRetry {

	private final RetryTemplate template;

	private final @Nullable RecoverMethods recover;

	private final boolean flux;

	ReactiveMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover, boolean flux) {
		this.template = template;
		this.recover = recover;
		this.flux = flux;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object publisher = invocation.proceed();
		if (publisher == null) {
			return null;
		}
		if (this.flux) {
			Mono<java.util.List<Object>> all = retried(((Flux<?>) publisher).cast(Object.class).collectList(), invocation);
			return all.flatMapIterable(list -> list);
		}
		return retried(((Mono<?>) publisher).cast(Object.class), invocation);
	}

	private <T> Mono<T> retried(Mono<T> source, MethodInvocation invocation) {
		RecoverMethods recoverMethods = this.recover;
		if (recoverMethods == null) {
			return Mono.fromFuture(() -> this.template.executeAsync(source::toFuture));
		}
		return Mono.fromFuture(() -> this.template.executeAsync(source::toFuture, failure -> recovered(recoverMethods,
				invocation, failure)));
	}

	@SuppressWarnings("unchecked")
	private <T> java.util.concurrent.CompletableFuture<T> recovered(RecoverMethods recoverMethods,
			MethodInvocation invocation, Throwable failure) {
		try {
			Object result = recoverMethods.recover(invocation, failure);
			if (result instanceof Flux<?> elements) {
				return (java.util.concurrent.CompletableFuture<T>) elements.collectList().toFuture();
			}
			return (result != null) ? ((Mono<T>) result).toFuture()
					: java.util.concurrent.CompletableFuture.completedFuture(null);
		}
		catch (Exception ex) {
			return java.util.concurrent.CompletableFuture.failedFuture(ex);
		}
	}

}
