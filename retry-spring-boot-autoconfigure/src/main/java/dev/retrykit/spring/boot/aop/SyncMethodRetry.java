package dev.retrykit.spring.boot.aop;

import dev.retrykit.RecoveryCallback;
import dev.retrykit.RetryCallDescriber;
import dev.retrykit.RetryCallback;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryFunction;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Retries a method that returns a plain value: each attempt runs the rest of the interceptor chain
 * (so an inner {@code @Transactional} starts a fresh transaction) inside
 * {@code template.execute(context -> ...)}, which makes {@link RetryTemplate#currentContext} work in the
 * method. Each attempt proceeds from where the call entered the retry interceptor
 * ({@link AttemptInvoker}). Stateless without recovery and with the retry interceptor innermost, a call
 * allocates nothing:
 * the attempt is a constant function of the invocation; a method whose calls have listeners makes an
 * attempt object per call, which tells them the invocation ({@link MethodListeners}). When the instance
 * hedges on an executor ({@code hedging.executor}), the copies run on that executor's threads at the same
 * time, each through the whole chain ({@link HedgedInvocation}), while the caller waits. Thread-safe.
 */
final class SyncMethodRetry implements MethodRetry {

	private static final RetryFunction<MethodInvocation, @Nullable Object, Throwable> PROCEED = (start,
			context) -> {
		HedgedInvocation.refuseHedgeOnSharedInvocation(context);
		return start.proceed();
	};

	/** Whether the method's attempts proceed on the invocation itself, for the proxy last seen. */
	private final AttemptInvoker.ChainShape shape = new AttemptInvoker.ChainShape();

	private final RetryTemplate template;

	private final @Nullable RecoverMethods recover;

	private final @Nullable StatefulKey key;

	/**
	 * No stateful key, no recover method and no listeners (which would be told the invocation): the
	 * attempt is {@link #PROCEED}.
	 */
	private final boolean plain;

	SyncMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover, @Nullable StatefulKey key,
			boolean heard) {
		this.template = template;
		this.recover = recover;
		this.key = key;
		this.plain = (key == null && recover == null && !heard);
	}

	/**
	 * The hot path is kept a few bytecodes long, so that the JIT inlines it into the interceptor's
	 * call the same way in every JVM; everything but a plain call continues in {@link #invokeOther}.
	 * Hedging is checked on every call, as the instance's configuration may change at runtime.
	 */
	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		if (this.plain && !HedgedInvocation.hedgesBlocking(this.template)) {
			return this.template.execute(PROCEED, this.shape.start(invocation));
		}
		return invokeOther(invocation);
	}

	private @Nullable Object invokeOther(MethodInvocation invocation) throws Throwable {
		RecoverMethods recoverMethods = this.recover;
		if (this.key == null && HedgedInvocation.hedgesBlocking(this.template)) {
			return hedged(invocation, recoverMethods);
		}
		RetryCallback<@Nullable Object, Throwable> attempt = new Attempt(invocation, this.shape.start(invocation));
		if (this.key == null && recoverMethods == null) {
			return this.template.execute(attempt);
		}
		if (this.key != null) {
			return this.template.execute(attempt, (recoverMethods != null) ? recovery(recoverMethods, invocation) : null,
					RetryState.of(this.key.of(invocation)));
		}
		return this.template.execute(attempt, recovery(java.util.Objects.requireNonNull(recoverMethods), invocation));
	}

	/**
	 * A call of an instance that hedges on an executor: each copy runs on an executor thread, in the
	 * caller's {@link CallerContext}, through the whole rest of the chain ({@link HedgedInvocation}).
	 */
	private @Nullable Object hedged(MethodInvocation invocation, @Nullable RecoverMethods recoverMethods) throws Throwable {
		HedgedCopy copy = new HedgedCopy(invocation, new HedgedInvocation(invocation), CallerContext.capture());
		return (recoverMethods != null) ? this.template.execute(copy, recovery(recoverMethods, invocation))
				: this.template.execute(copy);
	}

	/** A copy of a hedged call, run on the executor; tells the call's listeners its invocation. */
	private static final class HedgedCopy extends InvocationAttempt implements RetryCallback<@Nullable Object, Throwable> {

		HedgedCopy(MethodInvocation invocation, HedgedInvocation copies, CallerContext caller) {
			super(invocation, caller, copies);
		}

		@Override
		public @Nullable Object doWithRetry(RetryContext context) throws Throwable {
			return proceed(context);
		}

	}

	/** One call's attempt, which tells the call's listeners its invocation. */
	private static final class Attempt implements RetryCallback<@Nullable Object, Throwable>, RetryCallDescriber {

		private final MethodInvocation invocation;

		private final MethodInvocation start;

		Attempt(MethodInvocation invocation, MethodInvocation start) {
			this.invocation = invocation;
			this.start = start;
		}

		@Override
		public @Nullable Object doWithRetry(RetryContext context) throws Throwable {
			HedgedInvocation.refuseHedgeOnSharedInvocation(context);
			return this.start.proceed();
		}

		@Override
		public void describe(RetryContext context) {
			MethodListeners.describe(context, this.invocation);
		}

	}

	private static RecoveryCallback<@Nullable Object> recovery(RecoverMethods recoverMethods, MethodInvocation invocation) {
		return context -> recoverMethods.recover(invocation, context.getLastThrowable());
	}

}
