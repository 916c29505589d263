package dev.retrykit.spring.boot.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.function.Supplier;

import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Retries a method that returns a {@link CompletionStage} without blocking: the method is called again
 * (through the rest of the interceptor chain) for each attempt by {@link RetryTemplate#executeAsync(Function)},
 * whose delays run on the scheduler and which hands each attempt, and each copy of a hedged call, its own
 * context. A synchronous throw counts as a failed attempt. Each attempt and
 * the recovery run in the caller's {@link CallerContext} (trace, MDC, security context), also on the
 * executor thread that runs a retry; the call's listeners learn the invocation ({@link MethodListeners}).
 * The copies of a hedged call, which may run at the same time, each run the whole chain
 * ({@link HedgedInvocation}). {@link SuspendMethodRetry} starts its calls through {@link #call} with a
 * conversion of its own. Thread-safe.
 */
final class AsyncMethodRetry implements MethodRetry {

	private final RetryTemplate template;

	private final @Nullable RecoverMethods recover;

	/** Turns what an attempt or the recovery returned into the stage the template awaits; may throw. */
	private final Function<@Nullable Object, CompletionStage<@Nullable Object>> toStage;

	/** Whether the attempts and the recovery run in the caller's context. */
	private final boolean inCallerContext;

	/** Replaces each attempt's last argument on a clone of its own (a suspend function's continuation), or {@code null}. */
	private final @Nullable UnaryOperator<@Nullable Object> lastArgument;

	AsyncMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover) {
		this(template, recover, AsyncMethodRetry::returnedStage, true, null);
	}

	/**
	 * @param template the method's template
	 * @param recover the method's recover methods, or {@code null}
	 * @param toStage turns what an attempt or the recovery returned into a stage; what it throws fails the attempt
	 * @param inCallerContext whether the attempts and the recovery run in the caller's {@link CallerContext}
	 * @param lastArgument replaces each attempt's last argument, on a clone of the invocation of its own,
	 * while the attempt's context is current; or {@code null}
	 */
	AsyncMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover,
			Function<@Nullable Object, CompletionStage<@Nullable Object>> toStage, boolean inCallerContext,
			@Nullable UnaryOperator<@Nullable Object> lastArgument) {
		this.template = template;
		this.recover = recover;
		this.toStage = toStage;
		this.inCallerContext = inCallerContext;
		this.lastArgument = lastArgument;
	}

	@Override
	public Object invoke(MethodInvocation invocation) {
		return start(attempt(invocation));
	}

	/**
	 * Prepares a call on entry to the interceptor (the chain's position, a hedged call's pristine clone,
	 * the caller's context), and returns what starts it later.
	 * @param invocation the invocation as the retry interceptor received it
	 * @return starts the call and returns its future
	 */
	Supplier<CompletableFuture<@Nullable Object>> call(MethodInvocation invocation) {
		Attempt attempt = attempt(invocation);
		return () -> start(attempt);
	}

	private Attempt attempt(MethodInvocation invocation) {
		CallerContext caller = this.inCallerContext ? CallerContext.capture() : CallerContext.none();
		HedgedInvocation copies = HedgedInvocation.hedgesAsync(this.template) ? new HedgedInvocation(invocation) : null;
		return new Attempt(invocation, caller, copies);
	}

	private CompletableFuture<Object> start(Attempt attempt) {
		RecoverMethods recoverMethods = this.recover;
		if (recoverMethods == null) {
			return this.template.executeAsync(attempt);
		}
		Function<@Nullable Throwable, CompletionStage<@Nullable Object>> recovery = failure -> stage(
				() -> attempt.recover(recoverMethods, failure));
		return this.template.executeAsync(attempt, recovery);
	}

	/** Runs an attempt, or the recovery; a throw fails the stage. */
	private CompletionStage<@Nullable Object> stage(Call call) {
		try {
			return this.toStage.apply(call.run());
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@SuppressWarnings("unchecked")
	private static CompletionStage<@Nullable Object> returnedStage(@Nullable Object result) {
		if (result == null) {
			return CompletableFuture.failedFuture(new NullPointerException("The method returned null instead of a CompletionStage"));
		}
		return (CompletionStage<@Nullable Object>) result;
	}

	/** Starts one attempt of a call; tells the call's listeners its invocation. */
	private final class Attempt extends InvocationAttempt
			implements Function<RetryContext, CompletionStage<@Nullable Object>> {

		Attempt(MethodInvocation invocation, CallerContext caller, @Nullable HedgedInvocation copies) {
			super(invocation, caller, copies);
		}

		/** Starts the attempt (or hedged copy) whose context the engine hands. */
		@Override
		public CompletionStage<@Nullable Object> apply(RetryContext context) {
			UnaryOperator<@Nullable Object> replacing = AsyncMethodRetry.this.lastArgument;
			return stage(() -> proceed(context, replacing));
		}

	}

	@FunctionalInterface
	private interface Call {

		@Nullable Object run() throws Throwable;

	}

}
