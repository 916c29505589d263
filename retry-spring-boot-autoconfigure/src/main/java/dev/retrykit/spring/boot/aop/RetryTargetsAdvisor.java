package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.Pointcut;
import org.springframework.aop.aspectj.AspectJExpressionPointcut;
import org.springframework.aop.support.ComposablePointcut;

/**
 * Applies retry to the methods that {@code retry.targets} pointcut expressions match, for beans that
 * cannot be annotated. The first matching target gives the instance; a method that carries
 * {@code @Retryable} is left to {@link RetryAdvisor}. Needs AspectJ's weaver to parse the expressions
 * (the starter brings it). Thread-safe.
 */
public final class RetryTargetsAdvisor extends RetryableMethodAdvisor {

	private static final long serialVersionUID = 1L;

	/**
	 * Makes the advisor of the given targets.
	 * @param targets the parsed pointcut expressions and their instance names, in order: the first that
	 * matches a method gives its instance
	 * @param resolver the resolver, obtained on first use
	 * @param order the advisor's order
	 */
	public RetryTargetsAdvisor(List<Target> targets, Supplier<RetryableMethodResolver> resolver, int order) {
		super(union(targets), resolver(List.copyOf(targets), resolver), order);
	}

	private static Pointcut union(List<Target> targets) {
		ComposablePointcut union = null;
		for (Target target : targets) {
			union = (union != null) ? union.union((Pointcut) target.pointcut()) : new ComposablePointcut((Pointcut) target.pointcut());
		}
		return (union != null) ? union : new NoMethods();
	}

	private static BiFunction<Method, Class<?>, MethodRetry> resolver(List<Target> targets,
			Supplier<RetryableMethodResolver> resolver) {
		return (method, type) -> resolver.get().resolveTarget(method, type, instanceFor(targets, method, type));
	}

	private static String instanceFor(List<Target> targets, Method method, Class<?> targetClass) {
		for (Target target : targets) {
			if (target.pointcut().matches(method, targetClass)) {
				return target.instance();
			}
		}
		throw new IllegalStateException("No retry target matches " + method);
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
