package dev.retrykit.spring.boot.aop;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.retrykit.Deadline;
import dev.retrykit.RetryTemplate;
import dev.retrykit.spring.boot.http.server.ExhaustionMarker;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Retries a Kotlin {@code suspend fun} without blocking a thread, through
 * {@link RetryTemplate#executeAsync}, so its policy, backoff (waits on the instance's scheduler),
 * circuit breaker, budget, metrics and events are those of any call of the instance.
 *
 * <p>Spring AOP hands a suspend function's call to its interceptors as a cold {@link Publisher} (it
 * invokes the function through Spring's {@code CoroutinesUtils} when subscribed) and awaits what the
 * chain returns on the caller's {@code Continuation}. Each attempt here runs the rest of the chain again
 * ({@link AttemptInvoker}), which re-invokes the function, and subscribes to its publisher; the call
 * returns a {@code Mono} of the retried future, which Spring's proxy awaits. Cancelling the calling
 * coroutine cancels that subscription, hence the future: the pending retry and the attempt in flight are
 * cancelled and no further attempt starts.
 *
 * <p>On a hedging instance the attempts are copies that run at once (the core's hedged
 * {@code executeAsync}): each copy re-invokes the function, its coroutine runs concurrently with the
 * others', the first accepted result is the call's, and each losing copy's future is cancelled, which
 * cancels its subscription and so its coroutine.
 *
 * <p>Recovery: a {@code suspend} recover method's publisher is awaited; a plain recover method's value
 * is the result (it runs on the thread that completes the last attempt, so it should not block).
 * The calls run as {@link AsyncMethodRetry}'s do, with this class's conversion of what an attempt
 * returns, and without restoring the caller's context. Loaded only when Kotlin coroutines and Reactor
 * are on the classpath. Thread-safe.
 *
 * <p>Each attempt (each copy of a hedged call) is invoked on a clone of the invocation of its own whose
 * {@code Continuation} carries the attempt's context into the function's coroutine: inside the function,
 * {@link RetryTemplate#currentContext} is the attempt's (a copy's retry count and {@code retry.hedged})
 * as it starts, after each resume on whatever thread, and in the coroutines it switches to.
 *
 * <p>Deadline and request marker: the call opens under the earliest of the {@link Deadline} current on the thread
 * that invoked the function and the one in the Reactor {@code Context} of Spring's subscription (key
 * {@code Deadline.class}; kotlinx-coroutines-reactor hands the coroutine's {@code ReactorContext} element to it,
 * and a WebFlux handler's coroutine carries the request's), and with the request's {@link ExhaustionMarker} found
 * the same way, so that its attempts run under the deadline and a call that gives up marks the request's response.
 */
final class SuspendMethodRetry implements MethodRetry {

	private final AsyncMethodRetry async;

	SuspendMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover) {
		// Each attempt's coroutine gets the attempt's context as current wherever it runs (KotlinCoroutines).
		this.async = new AsyncMethodRetry(template, recover, SuspendMethodRetry::future, false,
				KotlinCoroutines::withCurrentRetryContext);
	}

	@Override
	public Object invoke(MethodInvocation invocation) {
		// Prepared now, on entry; started when Spring's proxy subscribes.
		Supplier<CompletableFuture<@Nullable Object>> call = this.async.call(invocation);
		Deadline deadlineAtEntry = Deadline.current();
		ExhaustionMarker markerAtEntry = ExhaustionMarker.current();
		return Mono.deferContextual(reactor -> {
			Deadline deadline = Deadline.earliest(reactor.getOrDefault(Deadline.class, null), deadlineAtEntry);
			ExhaustionMarker marker = reactor.getOrDefault(ExhaustionMarker.class, markerAtEntry);
			Deadline.Scope deadlineScope = (deadline != null) ? deadline.enter() : null;
			ExhaustionMarker.Scope markerScope = (marker != null) ? marker.enter() : null;
			try {
				return Mono.fromFuture(call.get());
			}
			finally {
				if (markerScope != null) {
					markerScope.close();
				}
				if (deadlineScope != null) {
					deadlineScope.close();
				}
			}
		});
	}

	/**
	 * A publisher (what Spring's invocation of a suspend function returns) is subscribed to, and cancelled
	 * with the future; anything else is a value (an inner interceptor's, or a plain recover method's).
	 */
	@SuppressWarnings("unchecked")
	private static CompletableFuture<@Nullable Object> future(@Nullable Object result) {
		if (result instanceof Publisher<?> publisher) {
			return (CompletableFuture<@Nullable Object>) Mono.from(publisher).toFuture();
		}
		return CompletableFuture.completedFuture(result);
	}

}
