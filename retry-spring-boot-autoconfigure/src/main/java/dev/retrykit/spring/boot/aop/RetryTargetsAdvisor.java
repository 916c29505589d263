package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import org.aopalliance.aop.Advice;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.Pointcut;
import org.springframework.aop.aspectj.AspectJExpressionPointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.util.ClassUtils;

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
	 * @param targets the pointcut expressions and instance names, in order
	 * @param resolver the resolver, obtained on first use
	 * @param order the advisor's order
	 * @throws InvalidRetryPropertyException if an expression or instance is missing or malformed, or
	 * AspectJ's weaver is not on the classpath
	 */
	public RetryTargetsAdvisor(List<dev.retrykit.spring.boot.autoconfigure.RetryProperties.Target> targets,
			Supplier<RetryableMethodResolver> resolver, int order) {
		ComposablePointcut union = null;
		for (int i = 0; i < targets.size(); i++) {
			Target target = parse(i, targets.get(i));
			this.targets.add(target);
			union = (union != null) ? union.union((Pointcut) target.pointcut()) : new ComposablePointcut((Pointcut) target.pointcut());
		}
		this.pointcut = (union != null) ? union : new NoMethods();
		this.interceptor = new RetryableMethodInterceptor(
				(method, type) -> resolver.get().resolveTarget(method, type, instanceFor(method, type)));
		setOrder(order);
	}

	private static Target parse(int index, dev.retrykit.spring.boot.autoconfigure.RetryProperties.Target target) {
		String path = "retry.targets[" + index + "]";
		if (target.getInstance() == null || target.getInstance().isBlank()) {
			throw new InvalidRetryPropertyException(path + ".instance", target.getInstance(), "every target needs an instance",
					"Set '" + path + ".instance' to the name of the instance that retries the matched methods.", null);
		}
		if (target.getPointcut() == null || target.getPointcut().isBlank()) {
			throw new InvalidRetryPropertyException(path + ".pointcut", target.getPointcut(), "every target needs a pointcut",
					"Set '" + path + ".pointcut' to an AspectJ expression such as \"execution(* com.example.Api.*(..))\".", null);
		}
		if (!ClassUtils.isPresent("org.aspectj.weaver.tools.PointcutParser", RetryTargetsAdvisor.class.getClassLoader())) {
			throw new InvalidRetryPropertyException(path + ".pointcut", target.getPointcut(),
					"pointcut expressions need AspectJ's weaver (org.aspectj:aspectjweaver), which is not on the classpath",
					"Depend on retry-spring-boot-starter or spring-boot-starter-aspectj, or remove retry.targets.", null);
		}
		AspectJExpressionPointcut pointcut = new AspectJExpressionPointcut();
		pointcut.setExpression(target.getPointcut());
		try {
			pointcut.getPointcutExpression();
		}
		catch (IllegalArgumentException | IllegalStateException ex) {
			throw new InvalidRetryPropertyException(path + ".pointcut", target.getPointcut(),
					"not a valid AspectJ pointcut expression: " + ex.getMessage(),
					"Update '" + path + ".pointcut' to a valid expression such as \"execution(* com.example.Api.*(..))\".", ex);
		}
		return new Target(pointcut, target.getInstance());
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

	private record Target(AspectJExpressionPointcut pointcut, String instance) {
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
