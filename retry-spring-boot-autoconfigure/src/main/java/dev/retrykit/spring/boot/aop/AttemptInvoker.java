package dev.retrykit.spring.boot.aop;

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
 * on every call, even one whose first attempt succeeds. Instead the index is set back through a
 * {@link VarHandle} on {@link ReflectiveMethodInvocation}'s index (the class behind both JDK and CGLIB
 * proxies), in one of two ways. Attempts that run inside the interceptor's own call (synchronous methods) put back the index they
 * found when they fail ({@link #proceedAndRewind}), which needs no state between attempts. Attempts that
 * run after the interceptor has returned (async retries, failback), when an enclosing interceptor may
 * have moved the index, rewind to the position {@linkplain #mark marked} on entry ({@link #proceed}).
 * Where that field cannot be reached (another invocation class, a module system that denies access) each attempt
 * proceeds on an {@linkplain ProxyMethodInvocation#invocableClone() invocable clone}, as Spring Retry does.
 */
final class AttemptInvoker {

	/** The field of {@link ReflectiveMethodInvocation} that holds the chain's position. */
	static final String INDEX_FIELD = "currentInterceptorIndex";

	private static final @Nullable VarHandle INDEX = findIndex();

	/** What {@link #mark} returns when the index cannot be reached. */
	private static final int NO_MARK = -2;

	private AttemptInvoker() {
	}

	/**
	 * @param invocation the invocation as the retry interceptor received it
	 * @return the position to rewind to, or {@link #NO_MARK} when rewinding is not possible
	 */
	static int mark(MethodInvocation invocation) {
		VarHandle index = INDEX;
		return (index != null && invocation instanceof ReflectiveMethodInvocation) ? (int) index.get((ReflectiveMethodInvocation) invocation) : NO_MARK;
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
		if (mark != NO_MARK && index != null) {
			index.set((ReflectiveMethodInvocation) invocation, mark);
			return invocation.proceed();
		}
		return proceedOnClone(invocation);
	}

	/**
	 * Runs one attempt; if it fails, puts the chain's index back to where the attempt found it, so that
	 * the next attempt starts at the same interceptor. Needs no mark: the first attempt finds the index
	 * where the retry interceptor was entered, and every failed attempt leaves it there. A successful
	 * attempt is the last one and leaves the index where the chain took it, as any interceptor does.
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
			catch (Throwable ex) {
				index.set(reflective, mark);
				throw ex;
			}
		}
		return proceedOnClone(invocation);
	}

	/** Where the index cannot be reached: each attempt runs on a clone of the untouched invocation. */
	private static @Nullable Object proceedOnClone(MethodInvocation invocation) throws Throwable {
		if (invocation instanceof ProxyMethodInvocation proxy) {
			return proxy.invocableClone().proceed();
		}
		return invocation.proceed();
	}

	private static @Nullable VarHandle findIndex() {
		try {
			return MethodHandles.privateLookupIn(ReflectiveMethodInvocation.class, MethodHandles.lookup())
				.findVarHandle(ReflectiveMethodInvocation.class, INDEX_FIELD, int.class);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return null;
		}
	}

}
