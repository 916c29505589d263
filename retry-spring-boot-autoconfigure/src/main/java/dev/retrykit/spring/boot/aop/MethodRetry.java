package dev.retrykit.spring.boot.aop;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Everything the interceptor needs for one method, resolved once: the template, the recover methods,
 * the stateful key. The hot path is {@link #invoke}. Implementations are immutable and thread-safe.
 */
interface MethodRetry {

	/** A method that is not retried by this advisor: it just proceeds. */
	MethodRetry PROCEED = MethodInvocation::proceed;

	/**
	 * @param invocation the intercepted call
	 * @return the call's result
	 * @throws Throwable the call's failure
	 */
	@Nullable Object invoke(MethodInvocation invocation) throws Throwable;

}
