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

/**
 * Retries a method that returns a {@link CompletionStage} without blocking: the method is called again
 * (through the rest of the interceptor chain) for each attempt by {@link RetryTemplate#executeAsync},
 * whose delays run on the scheduler. A synchronous throw counts as a failed attempt. Each attempt and
 * the recovery run in the caller's {@link CallerContext} (trace, MDC, security context), also on the
 * executor thread that runs a retry; the call's listeners learn the invocation ({@link MethodListeners}).
 * The copies of a hedged call, which may run at the same time, each run the whole chain
 * ({@link HedgedInvocation}). Thread-safe.
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
		CallerContext caller = CallerContext.capture();
		HedgedInvocation copies = HedgedInvocation.hedgesAsync(this.template) ? new HedgedInvocation(invocation) : null;
		Supplier<CompletionStage<Object>> attempt = new Attempt(invocation, AttemptInvoker.mark(invocation), caller, copies);
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

	/** Starts one attempt of a call; tells the call's listeners its invocation. */
	private static final class Attempt implements Supplier<CompletionStage<Object>>, RetryCallDescriber {

		private final MethodInvocation invocation;

		private final int mark;

		private final CallerContext caller;

		/** A hedged call's copies, each on its own invocation; {@code null} when the instance does not hedge. */
		private final @Nullable HedgedInvocation copies;

		Attempt(MethodInvocation invocation, int mark, CallerContext caller, @Nullable HedgedInvocation copies) {
			this.invocation = invocation;
			this.mark = mark;
			this.caller = caller;
			this.copies = copies;
		}

		@Override
		public CompletionStage<Object> get() {
			HedgedInvocation hedged = this.copies;
			if (hedged != null) {
				return stage(this.caller, hedged::proceed);
			}
			return stage(this.caller, () -> AttemptInvoker.proceed(this.invocation, this.mark));
		}

		@Override
		public void describe(RetryContext context) {
			MethodListeners.describe(context, this.invocation);
		}

	}

	@FunctionalInterface
	private interface Call {

		@Nullable Object run() throws Throwable;

	}

}
