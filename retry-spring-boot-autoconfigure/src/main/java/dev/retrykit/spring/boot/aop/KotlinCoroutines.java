package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;

import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.Job;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.CoroutinesUtils;

/**
 * Calls a {@code suspend} recover method the way Spring AOP calls a suspend function: through
 * {@link CoroutinesUtils#invokeSuspendingFunction}, which gives a cold {@link Publisher} (a
 * {@code Mono}, or a {@code Flux} for a {@code Flow}) that runs the function when subscribed. The
 * coroutine gets the caller's context without its {@link Job} (dispatcher, MDC or trace elements
 * carry over; cancellation reaches it through the subscription), as Spring's AOP does.
 *
 * <p>The only class of the module that refers to Kotlin types: it is loaded only for a {@code suspend}
 * recover method, so a Java application never loads it (an architecture test keeps it so). Stateless
 * and thread-safe.
 */
final class KotlinCoroutines {

	private KotlinCoroutines() {
	}

	/**
	 * @param method a suspend function
	 * @param target the bean
	 * @param arguments its arguments, without the {@code Continuation}
	 * @param callerContinuation the {@code Continuation} of the intercepted call, or {@code null}
	 * @return the function's result as a cold publisher
	 */
	static Publisher<?> invokeSuspending(Method method, Object target, @Nullable Object[] arguments,
			@Nullable Object callerContinuation) {
		if (callerContinuation instanceof Continuation<?> caller) {
			CoroutineContext context = caller.getContext().minusKey(Job.Key);
			return CoroutinesUtils.invokeSuspendingFunction(context, method, target, arguments);
		}
		return CoroutinesUtils.invokeSuspendingFunction(method, target, arguments);
	}

}
