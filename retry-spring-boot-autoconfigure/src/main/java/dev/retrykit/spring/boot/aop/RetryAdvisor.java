package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.util.ClassUtils;

/**
 * Applies retry to methods annotated (or declared in a type annotated) with
 * {@link dev.retrykit.annotation.Retryable}, and background retry to {@link dev.retrykit.annotation.Failback}
 * methods. A plain Spring AOP advisor: annotations need no AspectJ
 * weaver. Its order is {@code retry.aspect-order}; by default it wraps {@code @Transactional}.
 * Thread-safe.
 */
public final class RetryAdvisor extends RetryableMethodAdvisor {

	private static final long serialVersionUID = 1L;

	/**
	 * @param resolver the resolver, obtained on first use so that creating the advisor creates no other bean
	 * @param order the advisor's order
	 */
	public RetryAdvisor(Supplier<RetryableMethodResolver> resolver, int order) {
		super(new RetryablePointcut(), (method, type) -> resolver.get().resolve(method, type), order);
	}

	private static final class RetryablePointcut extends StaticMethodMatcherPointcut {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			Class<?> userClass = ClassUtils.getUserClass(targetClass);
			return RetryableAnnotations.isAnnotated(AopUtils.getMostSpecificMethod(method, userClass), userClass);
		}

	}

}
