package dev.retrykit.spring.boot.aop;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A {@link MethodInvocation} that reads as the one it wraps (method, arguments, target, static part) and
 * proceeds in a way of its own, so that listeners and recover methods read the call as usual. Thread-safe
 * when its {@link #proceed} is.
 */
abstract class ForwardingMethodInvocation implements MethodInvocation {

	private final MethodInvocation invocation;

	/**
	 * @param invocation the invocation this one reads as
	 */
	ForwardingMethodInvocation(MethodInvocation invocation) {
		this.invocation = invocation;
	}

	@Override
	public final Method getMethod() {
		return this.invocation.getMethod();
	}

	@Override
	public final @Nullable Object[] getArguments() {
		return this.invocation.getArguments();
	}

	@Override
	public final @Nullable Object getThis() {
		return this.invocation.getThis();
	}

	@Override
	public final AccessibleObject getStaticPart() {
		return this.invocation.getStaticPart();
	}

}
