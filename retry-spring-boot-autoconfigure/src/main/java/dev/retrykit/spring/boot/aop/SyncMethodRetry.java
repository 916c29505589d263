package dev.retrykit.spring.boot.aop;

import dev.retrykit.RecoveryCallback;
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
		StatefulKey key = this.key;
		if (key != null) {
			return this.template.execute(attempt(invocation),
					(recoverMethods != null) ? recovery(recoverMethods, invocation) : null, RetryState.of(key.of(invocation)));
		}
		Attempt attempt = HedgedInvocation.hedgesBlocking(this.template) ? hedged(invocation) : attempt(invocation);
		return (recoverMethods != null) ? this.template.execute(attempt, recovery(recoverMethods, invocation))
				: this.template.execute(attempt);
	}

	/** An attempt on the caller's thread, which tells the call's listeners its invocation. */
	private Attempt attempt(MethodInvocation invocation) {
		return new Attempt(invocation, this.shape.start(invocation), CallerContext.none(), null);
	}

	/**
	 * A call of an instance that hedges on an executor: each copy runs on an executor thread, in the
	 * caller's {@link CallerContext}, through the whole rest of the chain ({@link HedgedInvocation}).
	 */
	private static Attempt hedged(MethodInvocation invocation) {
		return new Attempt(invocation, invocation, CallerContext.capture(), new HedgedInvocation(invocation));
	}

	/** An attempt, or a copy of a hedged call, run with the context the engine hands it. */
	private static final class Attempt extends InvocationAttempt implements RetryCallback<@Nullable Object, Throwable> {

		Attempt(MethodInvocation invocation, MethodInvocation start, CallerContext caller,
				@Nullable HedgedInvocation copies) {
			super(invocation, start, caller, copies);
		}

		@Override
		public @Nullable Object doWithRetry(RetryContext context) throws Throwable {
			return proceed(context);
		}

	}

	private static RecoveryCallback<@Nullable Object> recovery(RecoverMethods recoverMethods, MethodInvocation invocation) {
		return context -> recoverMethods.recover(invocation, context.getLastThrowable());
	}

}
