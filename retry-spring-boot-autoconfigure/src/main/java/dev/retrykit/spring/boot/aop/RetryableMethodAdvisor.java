package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.function.BiFunction;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * An advisor whose advice is a {@link RetryableMethodInterceptor}. The advisors differ only in which
 * methods their pointcut matches and in how a matched method's retry is resolved. Thread-safe.
 */
abstract class RetryableMethodAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient Pointcut pointcut;

	private final transient RetryableMethodInterceptor interceptor;

	/**
	 * @param pointcut the methods to retry
	 * @param resolver resolves a matched method of a target class, once
	 * @param order the advisor's order
	 */
	RetryableMethodAdvisor(Pointcut pointcut, BiFunction<Method, Class<?>, MethodRetry> resolver, int order) {
		this.pointcut = pointcut;
		this.interceptor = new RetryableMethodInterceptor(resolver);
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	/** {@return the interceptor, the advice} */
	RetryableMethodInterceptor getInterceptor() {
		return this.interceptor;
	}

}
