package dev.retrykit.spring.boot.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.RetryCallDescriber;
import dev.retrykit.RetryContext;
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
		HedgedInvocation copies = HedgedInvocation.hedgesAsync(this.template) ? new HedgedInvocation(invocation) : null;
		Supplier<CompletionStage<@Nullable Object>> attempt = new Attempt(invocation, AttemptInvoker.mark(invocation), copies);
		RecoverMethods recoverMethods = this.recover;
		if (recoverMethods == null) {
			return Mono.fromFuture(() -> this.template.executeAsync(attempt));
		}
		Function<@Nullable Throwable, CompletionStage<@Nullable Object>> recovery = failure -> recovered(recoverMethods,
				invocation, failure);
		return Mono.fromFuture(() -> this.template.executeAsync(attempt, recovery));
	}

	private static CompletableFuture<@Nullable Object> attempt(Proceed proceed) {
		try {
			return future(proceed.run());
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Starts one attempt of a call; tells the call's listeners its invocation, when the call starts at
	 * subscription, after this interceptor returned.
	 */
	private static final class Attempt implements Supplier<CompletionStage<@Nullable Object>>, RetryCallDescriber {

		private final MethodInvocation invocation;

		private final int mark;

		/** A hedged call's copies, each on its own invocation; {@code null} when the instance does not hedge. */
		private final @Nullable HedgedInvocation copies;

		Attempt(MethodInvocation invocation, int mark, @Nullable HedgedInvocation copies) {
			this.invocation = invocation;
			this.mark = mark;
			this.copies = copies;
		}

		@Override
		public CompletionStage<@Nullable Object> get() {
			HedgedInvocation hedged = this.copies;
			if (hedged != null) {
				return attempt(hedged::proceed);
			}
			return attempt(() -> AttemptInvoker.proceed(this.invocation, this.mark));
		}

		@Override
		public void describe(RetryContext context) {
			MethodListeners.describe(context, this.invocation);
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

	/** Runs the rest of the chain once: an attempt, or a copy of a hedged call ({@link HedgedInvocation}). */
	@FunctionalInterface
	private interface Proceed {

		@Nullable Object run() throws Throwable;

	}

}
