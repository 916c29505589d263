package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.DefaultAdvisorChainFactory;
import org.springframework.aop.support.AopUtils;

/**
 * Runs the rest of an interceptor chain once per attempt, through Spring's public AOP API only.
 *
 * <p>{@code MethodInvocation.proceed()} advances a position through the chain, so proceeding a second
 * time would skip the interceptors inside the retry (a second attempt would run without its inner
 * {@code @Transactional}). Two cases, told apart per method from the proxy's own advisor chain
 * ({@link Advised} and {@link DefaultAdvisorChainFactory}, both public):
 * <ul>
 * <li>the retry interceptor is the innermost one (nothing between it and the target, the usual case):
 * proceeding again invokes the target again, as {@code ReflectiveMethodInvocation} does once its
 * position is the last interceptor's. Every attempt proceeds on the invocation itself; nothing is
 * allocated;
 * <li>interceptors sit inside it: a pristine {@linkplain ProxyMethodInvocation#invocableClone() invocable
 * clone} is taken on entry, before the first attempt moves anything, and every attempt proceeds on a
 * clone of it, as Spring Retry and Spring Framework 7's retry interceptor do. The cached AspectJ join
 * point is dropped from the (shared) user attributes before each attempt, since it is bound to the
 * invocation of the attempt that made it and would proceed from that one's position.
 * </ul>
 * The shape is cached per method for the proxy last seen (one reference comparison per call); a method
 * proxied with another chain is looked at again. An invocation that is not a
 * {@link ProxyMethodInvocation} cannot be cloned and proceeds on itself. Thread-safe.
 */
final class AttemptInvoker {

	/** The key under which Spring's AspectJ advice caches its join point in the user attributes. */
	static final String JOIN_POINT_KEY = "org.aspectj.lang.JoinPoint";

	/** The shapes of the methods whose calls start through {@link #start(MethodInvocation)}. */
	private static final ConcurrentHashMap<Method, ChainShape> SHAPES = new ConcurrentHashMap<>();

	private AttemptInvoker() {
	}

	/**
	 * Where every attempt of a call starts, for the callers that keep no {@link ChainShape} of their own
	 * (a map look-up per call: async, reactive and failback calls, which allocate per call anyway).
	 * @param invocation the invocation as the retry interceptor received it, before it proceeded
	 * @return what each attempt proceeds: the invocation itself, or a pristine clone of it
	 */
	static MethodInvocation start(MethodInvocation invocation) {
		if (!(invocation instanceof ProxyMethodInvocation)) {
			return invocation;
		}
		return SHAPES.computeIfAbsent(invocation.getMethod(), method -> new ChainShape()).start(invocation);
	}

	/**
	 * Runs one attempt on a fresh clone of the pristine invocation.
	 * @param pristine the clone taken before the first attempt
	 * @return the attempt's result
	 * @throws Throwable the attempt's failure
	 */
	static @Nullable Object proceedOnClone(ProxyMethodInvocation pristine) throws Throwable {
		ProxyMethodInvocation attempt = (ProxyMethodInvocation) pristine.invocableClone();
		attempt.setUserAttribute(JOIN_POINT_KEY, null);
		return attempt.proceed();
	}

	/**
	 * Runs one attempt on a clone of its own whose last argument is {@code lastArgument}'s replacement of
	 * it (a suspend function's {@code Continuation}, carrying the attempt's context); an invocation that
	 * cannot be cloned proceeds as it is.
	 * @param start what each attempt proceeds ({@link #start}): the invocation itself, or a pristine clone
	 * @return the attempt's result
	 * @throws Throwable the attempt's failure
	 */
	static @Nullable Object proceedOnClone(MethodInvocation start, UnaryOperator<@Nullable Object> lastArgument)
			throws Throwable {
		ProxyMethodInvocation from = (start instanceof PristineInvocation pristine) ? pristine.clone
				: (start instanceof ProxyMethodInvocation proxied) ? proxied : null;
		if (from == null) {
			return start.proceed();
		}
		ProxyMethodInvocation attempt = (ProxyMethodInvocation) from.invocableClone();
		if (from != start) {
			attempt.setUserAttribute(JOIN_POINT_KEY, null);
		}
		@Nullable Object[] arguments = attempt.getArguments();
		if (arguments.length > 0) {
			// The clone's own array (invocableClone copies it): no other attempt sees the change.
			arguments[arguments.length - 1] = lastArgument.apply(arguments[arguments.length - 1]);
		}
		return attempt.proceed();
	}

	/**
	 * {@return whether the retry interceptor is the last interceptor of the proxy's chain for the
	 * invocation's method}: exactly one of retrykit's interceptors in the chain, and nothing after it
	 * @param invocation the invocation
	 */
	static boolean retryIsInnermost(ProxyMethodInvocation invocation) {
		if (!(invocation.getProxy() instanceof Advised advised)) {
			return false;
		}
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : advised.getTargetClass();
		List<Object> chain = DefaultAdvisorChainFactory.INSTANCE.getInterceptorsAndDynamicInterceptionAdvice(advised,
				invocation.getMethod(), targetClass);
		long retries = chain.stream().filter(RetryableMethodInterceptor.class::isInstance).count();
		return retries == 1 && !chain.isEmpty() && chain.get(chain.size() - 1) instanceof RetryableMethodInterceptor;
	}

	/**
	 * The chain's shape of one method, as last seen: whether its attempts can proceed on the invocation
	 * itself. Thread-safe: the cached pair is immutable and replaced whole.
	 */
	static final class ChainShape {

		private volatile @Nullable Seen seen;

		/**
		 * Where every attempt of a call starts; call on entry, before the invocation proceeds.
		 * @param invocation the invocation as the retry interceptor received it
		 * @return the invocation itself when the retry interceptor is innermost (or it cannot be cloned),
		 * else a pristine clone whose {@code proceed()} runs each attempt on a clone of its own
		 */
		MethodInvocation start(MethodInvocation invocation) {
			if (!(invocation instanceof ProxyMethodInvocation proxied)) {
				return invocation;
			}
			Seen last = this.seen;
			Object proxy = proxied.getProxy();
			boolean innermost;
			if (last != null && last.proxy == proxy) {
				innermost = last.innermost;
			}
			else {
				innermost = retryIsInnermost(proxied);
				this.seen = new Seen(proxy, innermost);
			}
			return innermost ? invocation : new PristineInvocation((ProxyMethodInvocation) proxied.invocableClone());
		}

	}

	/** The proxy a shape was worked out for. */
	private record Seen(Object proxy, boolean innermost) {
	}

	/**
	 * A clone taken before the first attempt, which no attempt proceeds on: each proceeds on a clone of
	 * it. A {@link MethodInvocation} so that listeners and recover methods read the call as usual.
	 */
	static final class PristineInvocation extends ForwardingMethodInvocation {

		final ProxyMethodInvocation clone;

		PristineInvocation(ProxyMethodInvocation clone) {
			super(clone);
			this.clone = clone;
		}

		@Override
		public @Nullable Object proceed() throws Throwable {
			return proceedOnClone(this.clone);
		}

	}

}
