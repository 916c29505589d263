package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Retries intercepted calls. Everything a method needs is resolved on its first call (or at startup by
 * {@link RetryableBeansValidator}) and cached per target class and method; the hot path is a
 * direct-mapped cache by {@code Method} identity in front of that cache, then the method's
 * {@link MethodRetry}. Thread-safe.
 */
public final class RetryableMethodInterceptor implements MethodInterceptor {

	private final BiFunction<Method, Class<?>, MethodRetry> resolver;

	private final ClassValue<ConcurrentHashMap<Method, MethodRetry>> cache = new ClassValue<>() {
		@Override
		protected ConcurrentHashMap<Method, MethodRetry> computeValue(Class<?> type) {
			return new ConcurrentHashMap<>();
		}
	};

	/**
	 * A direct-mapped cache by method identity in front of {@link #cache}: Spring's proxies pass the
	 * same {@link Method} object on every call, so a hit costs an identity hash and two reference
	 * comparisons instead of a {@code ClassValue} and a map lookup whose {@code Method.equals} compares
	 * parameter arrays. A miss (first call, or two methods sharing a slot) takes the maps and fills the
	 * slot. Entries are immutable, so racy reads and writes of the array are safe.
	 */
	private final Resolved[] recent = new Resolved[256];

	/**
	 * @param resolver resolves a method of a target class, once
	 */
	RetryableMethodInterceptor(BiFunction<Method, Class<?>, MethodRetry> resolver) {
		this.resolver = resolver;
	}

	/**
	 * A hit in {@link #recent} stays a few dozen bytecodes, so that the JIT inlines it the same way in
	 * every JVM; a miss continues out of line. The usual kind of method, {@link SyncMethodRetry}, is
	 * called through its class, so that this call site stays monomorphic whichever other kinds of
	 * methods the application's proxies also call.
	 */
	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Method method = invocation.getMethod();
		Class<?> targetClass = (target != null) ? target.getClass() : method.getDeclaringClass();
		int slot = System.identityHashCode(method) & (this.recent.length - 1);
		Resolved recent = this.recent[slot];
		if (recent != null && recent.method == method && recent.targetClass == targetClass) {
			MethodRetry retry = recent.retry;
			return (retry instanceof SyncMethodRetry sync) ? sync.invoke(invocation) : retry.invoke(invocation);
		}
		return resolveAndInvoke(invocation, method, targetClass, slot);
	}

	private @Nullable Object resolveAndInvoke(MethodInvocation invocation, Method method, Class<?> targetClass,
			int slot) throws Throwable {
		ConcurrentHashMap<Method, MethodRetry> methods = this.cache.get(targetClass);
		MethodRetry retry = methods.get(method);
		if (retry == null) {
			retry = methods.computeIfAbsent(method, key -> this.resolver.apply(key, targetClass));
		}
		this.recent[slot] = new Resolved(method, targetClass, retry);
		return retry.invoke(invocation);
	}

	private record Resolved(Method method, Class<?> targetClass, MethodRetry retry) {
	}

	/**
	 * Resolves a method ahead of its first call, so that startup fails on an invalid declaration.
	 * @param method the method
	 * @param targetClass the bean's class
	 */
	void prepare(Method method, Class<?> targetClass) {
		this.cache.get(targetClass).computeIfAbsent(method, key -> this.resolver.apply(key, targetClass));
	}

}
