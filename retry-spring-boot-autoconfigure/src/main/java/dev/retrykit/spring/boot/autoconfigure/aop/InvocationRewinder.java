package dev.retrykit.spring.boot.autoconfigure.aop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ReflectiveMethodInvocation;

/**
 * Runs the rest of an interceptor chain once per attempt.
 *
 * <p>{@code MethodInvocation.proceed()} advances an index through the chain, so calling it a second
 * time would skip the interceptors inside the retry (a second attempt would run without its
 * {@code @Transactional}). Spring Retry clones the invocation per attempt; that costs an allocation
 * on every call, even one whose first attempt succeeds. Instead the index is read when the retry
 * interceptor is entered and set back before each attempt, through a {@link VarHandle} on
 * {@link ReflectiveMethodInvocation}'s index (the class behind both JDK and CGLIB proxies): either the
 * caller marks it on entry and each attempt rewinds to the mark, or each attempt puts back the index
 * it started from when it returns, which needs no state between attempts. Where that
 * field cannot be reached (another invocation class, a module system that denies access) each attempt
 * proceeds on an {@linkplain ProxyMethodInvocation#invocableClone() invocable clone}, as Spring Retry does.
 */
final class InvocationRewinder {

	private static final @Nullable VarHandle INDEX = findIndex();

	private InvocationRewinder() {
	}

	/**
	 * @param invocation the invocation as the retry interceptor received it
	 * @return the position to rewind to, or -2 when rewinding is not possible
	 */
	static int mark(MethodInvocation invocation) {
		VarHandle index = INDEX;
		return (index != null && invocation instanceof ReflectiveMethodInvocation) ? (int) index.get((ReflectiveMethodInvocation) invocation) : -2;
	}

	/**
	 * Runs one attempt: the interceptors after the retry interceptor, then the target.
	 * @param invocation the invocation as the retry interceptor received it
	 * @param mark the value {@link #mark} returned
	 * @return the attempt's result
	 * @throws Throwable the attempt's failure
	 */
	static @Nullable Object proceed(MethodInvocation invocation, int mark) throws Throwable {
		VarHandle index = INDEX;
		if (mark != -2 && index != null) {
			index.set((ReflectiveMethodInvocation) invocation, mark);
			return invocation.proceed();
		}
		if (invocation instanceof ProxyMethodInvocation proxy) {
			return proxy.invocableClone().proceed();
		}
		return invocation.proceed();
	}

	/**
	 * Runs one attempt and puts the chain's index back to where the attempt found it, so that the
	 * next attempt starts at the same interceptor. Needs no mark: the first attempt finds the index
	 * where the retry interceptor was entered, and every attempt leaves it there.
	 * @param invocation the invocation as the retry interceptor received it
	 * @return the attempt's result
	 * @throws Throwable the attempt's failure
	 */
	static @Nullable Object proceedAndRewind(MethodInvocation invocation) throws Throwable {
		VarHandle index = INDEX;
		if (index != null && invocation instanceof ReflectiveMethodInvocation reflective) {
			int mark = (int) index.get(reflective);
			try {
				return reflective.proceed();
			}
			finally {
				index.set(reflective, mark);
			}
		}
		if (invocation instanceof ProxyMethodInvocation proxy) {
			return proxy.invocableClone().proceed();
		}
		return invocation.proceed();
	}

	private static @Nullable VarHandle findIndex() {
		try {
			return MethodHandles.privateLookupIn(ReflectiveMethodInvocation.class, MethodHandles.lookup())
				.findVarHandle(ReflectiveMethodInvocation.class, "currentInterceptorIndex", int.class);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return null;
		}
	}

}
