package dev.retrykit.spring.boot.aop;

import java.util.List;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The retry listeners of the application and what they learn of a {@code @Retryable} method's call. The
 * global {@link RetryListener} beans are registered on every instance; a method that names its own
 * ({@code @Retryable(listeners = ...)}) runs on a {@linkplain RetryTemplate#withListeners variant} of its
 * instance told to those instead. Either way the core calls them, one after the other, so a listener that
 * throws is counted and logged on its own and the others are still told.
 *
 * <p>Each call of a {@code @Retryable} or {@code @Failback} method carries its intercepted
 * {@link MethodInvocation} (method, arguments, target): its operation is a
 * {@link dev.retrykit.RetryCallDescriber} that puts the invocation into the call's context under
 * {@link #INVOCATION} before the listeners hear of the call, on whatever thread the call starts (a
 * {@code Mono}'s or a suspend function's starts at subscription). Any listener reads it with
 * {@link #invocation(RetryContext)}. Immutable and thread-safe.
 */
public final class MethodListeners {

	/**
	 * The context attribute that holds the intercepted {@link MethodInvocation} of a {@code @Retryable} or
	 * {@code @Failback} method's call (not set for calls through a template or {@code retry.targets}).
	 */
	public static final String INVOCATION = "retrykit.method-invocation";

	private final List<RetryListener> global;

	/**
	 * Makes the application's listeners.
	 * @param global the application's global listeners, in order
	 */
	public MethodListeners(List<? extends RetryListener> global) {
		this.global = List.copyOf(global);
	}

	/**
	 * Reads the intercepted method call of a call's context.
	 * @param context a call's context
	 * @return the intercepted method call, with its method, arguments and target, or {@code null} when the call
	 * is not a {@code @Retryable} or {@code @Failback} method's
	 */
	public static @Nullable MethodInvocation invocation(RetryContext context) {
		return (context.getAttribute(INVOCATION) instanceof MethodInvocation invocation) ? invocation : null;
	}

	/** {@return the global listeners, in order, to register on every instance} */
	public List<RetryListener> global() {
		return this.global;
	}

	/** {@return whether the application has global listeners} */
	public boolean hasGlobalListeners() {
		return !this.global.isEmpty();
	}

	/**
	 * Tells a call's listeners which method call it is.
	 * @param context the call's context
	 * @param invocation the intercepted call
	 */
	static void describe(RetryContext context, MethodInvocation invocation) {
		context.setAttribute(INVOCATION, invocation);
	}

}
