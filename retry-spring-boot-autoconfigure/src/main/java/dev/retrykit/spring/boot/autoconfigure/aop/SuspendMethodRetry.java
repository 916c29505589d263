package dev.retrykit.spring.boot.autoconfigure.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

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
 * <p>Recovery: a {@code suspend} recover method's publisher is awaited; a plain recover method's value
 * is the result (it runs on the thread that completes the last attempt, so it should not block).
 * Loaded only when Kotlin coroutines and Reactor are on the classpath. Thread-safe.
 */
final class SuspendMethodRetry implements MethodRetry {

	private final RetryTemplate template;

	private final @Nullable RecoverMethods recover;

	SuspendMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover) {
		this.template = template;
		this.recover = recover;
	}

	@Override
	public Object invoke(MethodInvocation invocation) {
		int mark = AttemptInvoker.mark(invocation);
		Supplier<CompletionStage<@Nullable Object>> attempt = () -> attempt(invocation, mark);
		RecoverMethods recoverMethods = this.recover;
		if (recoverMethods == null) {
			return Mono.fromFuture(() -> this.template.executeAsync(attempt));
		}
		Function<@Nullable Throwable, CompletionStage<@Nullable Object>> recovery = failure -> recovered(recoverMethods,
				invocation, failure);
		return Mono.fromFuture(() -> this.template.executeAsync(attempt, recovery));
	}

	private static CompletableFuture<@Nullable Object> attempt(MethodInvocation invocation, int mark) {
		try {
			return future(AttemptInvoker.proceed(invocation, mark));
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static CompletableFuture<@Nullable Object> recovered(RecoverMethods recoverMethods,
			MethodInvocation invocation, @Nullable Throwable failure) {
		try {
			return future(recoverMethods.recover(invocation, failure));
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
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
