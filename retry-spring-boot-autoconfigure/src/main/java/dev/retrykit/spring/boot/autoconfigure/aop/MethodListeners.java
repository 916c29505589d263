package dev.retrykit.spring.boot.autoconfigure.aop;

import dev.retrykit.context.RetryContext;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The former place of {@link dev.retrykit.spring.boot.aop.MethodListeners}, kept so that listeners written
 * against it still compile and run.
 * @deprecated since the runtime of the aspect moved to {@code dev.retrykit.spring.boot.aop}; use
 * {@link dev.retrykit.spring.boot.aop.MethodListeners}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class MethodListeners {

	/**
	 * The context attribute that holds the intercepted method call.
	 * @deprecated use {@link dev.retrykit.spring.boot.aop.MethodListeners#INVOCATION}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public static final String INVOCATION = dev.retrykit.spring.boot.aop.MethodListeners.INVOCATION;

	private MethodListeners() {
	}

	/**
	 * Reads the intercepted method call of a call's context.
	 * @param context a call's context
	 * @return the intercepted method call, or {@code null} when the call is not a method's
	 * @deprecated use {@link dev.retrykit.spring.boot.aop.MethodListeners#invocation(RetryContext)}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public static @Nullable MethodInvocation invocation(RetryContext context) {
		return dev.retrykit.spring.boot.aop.MethodListeners.invocation(context);
	}

}
