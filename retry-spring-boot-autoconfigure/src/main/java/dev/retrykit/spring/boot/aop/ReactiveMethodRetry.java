package dev.retrykit.spring.boot.aop;

import dev.retrykit.RetryTemplate;
import dev.retrykit.reactor.RetryOperator;
import dev.retrykit.spring.boot.http.server.ExhaustionMarker;
import dev.retrykit.spring.boot.http.server.ExhaustionRecordingListener;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Retries a method that returns a {@code Mono} or a {@code Flux} with retry-reactor's
 * {@link RetryOperator}: the method is called once to assemble the publisher; each attempt subscribes
 * to it again (Reactor's own {@code retry} semantics: a cold publisher such as a WebClient exchange makes
 * a new request per subscription), with the subscriber's {@code Context}. A {@code Flux} streams its
 * elements (those emitted before a failure are emitted again by the retry); cancelling the subscription
 * cancels the pending retry and the attempt in flight. A {@code @Recover} method's {@code Mono}/{@code Flux}
 * is subscribed like an attempt. The listeners of each call (each subscription) learn the invocation
 * ({@link MethodListeners}), and the request's {@link ExhaustionMarker} when the subscriber's {@code Context} has one
 * (a WebFlux request's), so that a call that gives up marks the request's response. Loaded only when Reactor is on
 * the classpath. Thread-safe.
 */
final class ReactiveMethodRetry implements MethodRetry {

	private final RetryOperator<Object> operator;

	private final @Nullable RecoverMethods recover;

	ReactiveMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover) {
		this.operator = RetryOperator.of(template);
		this.recover = recover;
	}

	@Override
	@SuppressWarnings("unchecked")
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object publisher = invocation.proceed();
		if (publisher == null) {
			return null;
		}
		RecoverMethods recoverMethods = this.recover;
		RetryOperator<Object> retry = (recoverMethods != null)
				? this.operator.withRecovery(failure -> recovered(recoverMethods, invocation, failure)) : this.operator;
		// Each subscription is a call, started after this method returned: the invocation travels with it.
		RetryOperator<Object> described = retry.describedBy(context -> MethodListeners.describe(context, invocation));
		// A Mono stays a Mono, a Flux a Flux; applied now, so that a Flux on a hedging instance is refused now.
		Publisher<Object> source = (Publisher<Object>) publisher;
		Publisher<Object> retried = described.apply(source);
		if (retried instanceof Mono<Object> mono) {
			return Mono.deferContextual(reactor -> Mono.from(inRequest(reactor, retry, invocation, source, mono)));
		}
		return Flux.deferContextual(reactor -> inRequest(reactor, retry, invocation, source, retried));
	}

	/** The retried publisher, whose call records into the marker of the request in the Context, when there is one. */
	private static Publisher<Object> inRequest(ContextView reactor, RetryOperator<Object> retry,
			MethodInvocation invocation, Publisher<Object> source, Publisher<Object> retried) {
		ExhaustionMarker marker = reactor.getOrDefault(ExhaustionMarker.class, null);
		if (marker == null) {
			return retried;
		}
		return retry.describedBy(context -> {
			MethodListeners.describe(context, invocation);
			context.setAttribute(ExhaustionRecordingListener.ATTRIBUTE, marker);
		}).apply(source);
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> recovered(RecoverMethods recoverMethods, MethodInvocation invocation,
			@Nullable Throwable failure) {
		try {
			Object result = recoverMethods.recover(invocation, failure);
			return (result != null) ? (Publisher<Object>) result : Mono.empty();
		}
		catch (Exception ex) {
			return Mono.error(ex);
		}
	}

}
