package dev.retrykit.spring.boot.autoconfigure.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.RetryTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Retries a method that returns a {@link CompletionStage} without blocking: the method is called again
 * (through the rest of the interceptor chain) for each attempt by {@link RetryTemplate#executeAsync},
 * whose delays run on the scheduler. A synchronous throw counts as a failed attempt. Each attempt and
 * the recovery run in the caller's {@link CallerContext} (trace, MDC, security context), also on the
 * executor thread that runs a retry. Thread-safe.
 */
final class AsyncMethodRetry implements MethodRetry {

	private final RetryTemplate template;

	private final @Nullable RecoverMethods recover;

	AsyncMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover) {
		this.template = template;
		this.recover = recover;
	}

	@Override
	public Object invoke(MethodInvocation invocation) {
		int mark = AttemptInvoker.mark(invocation);
		CallerContext caller = CallerContext.capture();
		Supplier<CompletionStage<Object>> attempt = () -> stage(caller, () -> AttemptInvoker.proceed(invocation, mark));
		RecoverMethods recoverMethods = this.recover;
		if (recoverMethods == null) {
			return this.template.executeAsync(attempt);
		}
		Function<@Nullable Throwable, CompletionStage<Object>> recovery = failure -> stage(caller, () -> recoverMethods
			.recover(invocation, failure));
		return this.template.executeAsync(attempt, recovery);
	}

	/** Runs an attempt, or the recovery, in the caller's context, whatever thread it runs on. */
	@SuppressWarnings("unchecked")
	private static CompletionStage<Object> stage(CallerContext caller, Call call) {
		try (CallerContext.Scope scope = caller.restore()) {
			Object result = call.run();
			if (result == null) {
				return CompletableFuture.failedFuture(new NullPointerException("The method returned null instead of a CompletionStage"));
			}
			return (CompletionStage<Object>) result;
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@FunctionalInterface
	private interface Call {

		@Nullable Object run() throws Throwable;

	}

}
