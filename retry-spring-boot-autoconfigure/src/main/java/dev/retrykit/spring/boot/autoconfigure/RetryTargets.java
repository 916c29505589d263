package dev.retrykit.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.retrykit.spring.boot.aop.RetryTargetsAdvisor;

import org.springframework.aop.aspectj.AspectJExpressionPointcut;
import org.springframework.util.ClassUtils;

/**
 * Parses {@code retry.targets} into the targets of {@link RetryTargetsAdvisor}; a missing or malformed
 * entry fails startup naming its property. Stateless.
 */
final class RetryTargets {

	private RetryTargets() {
	}

	/**
	 * @param targets the bound {@code retry.targets}
	 * @return the parsed targets, in order
	 * @throws InvalidRetryPropertyException if an expression or instance is missing or malformed, or
	 * AspectJ's weaver is not on the classpath
	 */
	static List<RetryTargetsAdvisor.Target> parse(List<RetryProperties.Target> targets) {
		List<RetryTargetsAdvisor.Target> parsed = new ArrayList<>();
		for (int i = 0; i < targets.size(); i++) {
			parsed.add(parse(i, targets.get(i)));
		}
		return parsed;
	}

	private static RetryTargetsAdvisor.Target parse(int index, RetryProperties.Target target) {
		String path = "retry.targets[" + index + "]";
		if (target.getInstance() == null || target.getInstance().isBlank()) {
			throw new InvalidRetryPropertyException(path + ".instance", target.getInstance(), "every target needs an instance",
					"Set '" + path + ".instance' to the name of the instance that retries the matched methods.", null);
		}
		if (target.getPointcut() == null || target.getPointcut().isBlank()) {
			throw new InvalidRetryPropertyException(path + ".pointcut", target.getPointcut(), "every target needs a pointcut",
					"Set '" + path + ".pointcut' to an AspectJ expression such as \"execution(* com.example.Api.*(..))\".", null);
		}
		if (!ClassUtils.isPresent("org.aspectj.weaver.tools.PointcutParser", RetryTargets.class.getClassLoader())) {
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
		return new RetryTargetsAdvisor.Target(pointcut, target.getInstance());
	}

}
