package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;

/**
 * The key of a stateful call or a failback task: the {@code key} SpEL expression evaluated over the arguments (root object
 * the argument array; {@code #p0}, {@code #a0} and parameter names as variables), or, without one, a
 * {@link DefaultMethodKey}: the method's generic signature with the arguments. The default key names the method
 * because an instance's context cache and failback queue are shared by all its methods: two methods called with the
 * same argument must never share a count (Spring Retry's default key does the same). Thread-safe; the expression
 * is parsed once.
 */
final class StatefulKey {

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private final Method method;

	private final @Nullable Expression expression;

	/** The method's generic signature, part of default keys: built once, not per call. */
	private final String signature;

	/** Resolves {@code @bean} references in the expression, as Spring Retry's keys do; {@code null} without a bean factory. */
	private final @Nullable BeanResolver beans;

	/**
	 * @param method the method
	 * @param expression the key expression, or {@code null} for the default key
	 * @param beans resolves {@code @beanName} references in the expression, or {@code null}
	 */
	StatefulKey(Method method, @Nullable Expression expression, @Nullable BeanResolver beans) {
		this.method = method;
		this.expression = expression;
		this.beans = beans;
		this.signature = method.toGenericString();
	}

	Object of(MethodInvocation invocation) {
		@Nullable Object[] arguments = invocation.getArguments();
		Object key;
		if (this.expression != null) {
			MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(arguments, this.method, arguments,
					PARAMETER_NAMES);
			if (this.beans != null) {
				context.setBeanResolver(this.beans);
			}
			key = this.expression.getValue(context);
		}
		else {
			key = new DefaultMethodKey(this.signature, arguments);
		}
		if (key == null) {
			throw new IllegalArgumentException("The stateful retry key of " + RetryableMethodException.describe(this.method)
					+ " is null; give @Retryable a key expression that never evaluates to null");
		}
		return key;
	}

}
