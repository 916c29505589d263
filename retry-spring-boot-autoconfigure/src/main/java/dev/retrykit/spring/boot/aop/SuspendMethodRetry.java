package dev.retrykit.spring.boot.aop;

import java.util.concurrent.CompletableFuture;

import dev.retrykit.RetryTemplate;
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
 */
final class SuspendMethodRetry implements MethodRetry {

	private final AsyncMethodRetry async;

	SuspendMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover) {
		this.async = new AsyncMethodRetry(template, recover, SuspendMethodRetry::future, false);
	}

	@Override
	public Object invoke(MethodInvocation invocation) {
		// Prepared now, on entry; started when Spring's proxy subscribes.
		return Mono.fromFuture(this.async.call(invocation));
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
