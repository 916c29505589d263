package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.Pointcut;
import org.springframework.aop.aspectj.AspectJExpressionPointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.ComposablePointcut;

/**
 * Applies retry to the methods that {@code retry.targets} pointcut expressions match, for beans that
 * cannot be annotated. The first matching target gives the instance; a method that carries
 * {@code @Retryable} is left to {@link RetryAdvisor}. Needs AspectJ's weaver to parse the expressions
 * (the starter brings it). Thread-safe.
 */
public final class RetryTargetsAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient List<Target> targets = new ArrayList<>();

	private final transient Pointcut pointcut;

	private final transient RetryableMethodInterceptor interceptor;

	/**
	 * Makes the advisor of the given targets.
	 * @param targets the parsed pointcut expressions and their instance names, in order: the first that
	 * matches a method gives its instance
	 * @param resolver the resolver, obtained on first use
	 * @param order the advisor's order
	 */
	public RetryTargetsAdvisor(List<Target> targets, Supplier<RetryableMethodResolver> resolver, int order) {
		ComposablePointcut union = null;
		for (Target target : targets) {
			this.targets.add(target);
			union = (union != null) ? union.union((Pointcut) target.pointcut()) : new ComposablePointcut((Pointcut) target.pointcut());
		}
		this.pointcut = (union != null) ? union : new NoMethods();
		this.interceptor = new RetryableMethodInterceptor(
				(method, type) -> resolver.get().resolveTarget(method, type, instanceFor(method, type)));
		setOrder(order);
	}

	private String instanceFor(Method method, Class<?> targetClass) {
		for (Target target : this.targets) {
			if (target.pointcut().matches(method, targetClass)) {
				return target.instance();
			}
		}
		throw new IllegalStateException("No retry target matches " + method);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	/**
	 * One target: the methods a pointcut expression matches, retried by an instance.
	 * @param pointcut the parsed expression
	 * @param instance the instance's name
	 */
	public record Target(AspectJExpressionPointcut pointcut, String instance) {
	}

	private static final class NoMethods implements Pointcut {

		@Override
		public ClassFilter getClassFilter() {
			return clazz -> false;
		}

		@Override
		public MethodMatcher getMethodMatcher() {
			return MethodMatcher.TRUE;
		}

	}

}
