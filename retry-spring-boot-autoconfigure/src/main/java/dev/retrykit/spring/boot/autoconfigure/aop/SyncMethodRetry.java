package dev.retrykit.spring.boot.autoconfigure.aop;

import dev.retrykit.RecoveryCallback;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryFunction;
import dev.retrykit.RetryState;
import dev.retrykit.RetryTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Retries a method that returns a plain value: each attempt runs the rest of the interceptor chain
 * (so an inner {@code @Transactional} starts a fresh transaction) inside
 * {@code template.execute(context -> ...)}, which makes {@code RetryContext.current()} work in the
 * method. Every failed attempt puts the chain's index back
 * ({@link AttemptInvoker#proceedAndRewind}). Stateless without recovery, a call allocates nothing:
 * the attempt is a constant function of the invocation.
 */
final class SyncMethodRetry implements MethodRetry {

	private static final RetryFunction<MethodInvocation, @Nullable Object, Throwable> PROCEED = (invocation,
			context) -> AttemptInvoker.proceedAndRewind(invocation);

	private final RetryTemplate template;

	private final @Nullable RecoverMethods recover;

	private final @Nullable StatefulKey key;

	SyncMethodRetry(RetryTemplate template, @Nullable RecoverMethods recover, @Nullable StatefulKey key) {
		this.template = template;
		this.recover = recover;
		this.key = key;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		RecoverMethods recoverMethods = this.recover;
		if (this.key == null && recoverMethods == null) {
			return this.template.execute(PROCEED, invocation);
		}
		RetryCallback<@Nullable Object, Throwable> attempt = context -> AttemptInvoker.proceedAndRewind(invocation);
		if (this.key != null) {
			return this.template.execute(attempt, (recoverMethods != null) ? recovery(recoverMethods, invocation) : null,
					RetryState.of(this.key.of(invocation)));
		}
		return this.template.execute(attempt, recovery(java.util.Objects.requireNonNull(recoverMethods), invocation));
	}

	private static RecoveryCallback<@Nullable Object> recovery(RecoverMethods recoverMethods, MethodInvocation invocation) {
		return context -> recoverMethods.recover(invocation, context.getLastThrowable());
	}

}
