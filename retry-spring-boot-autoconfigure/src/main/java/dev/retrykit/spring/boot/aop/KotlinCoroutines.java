package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;

import dev.retrykit.RetryContextScope;
import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import kotlin.coroutines.AbstractCoroutineContextElement;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.ThreadContextElement;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.CoroutinesUtils;

/**
 * The Kotlin side of {@code suspend} functions. Calls a {@code suspend} recover method the way Spring AOP calls a suspend function: through
 * {@link CoroutinesUtils#invokeSuspendingFunction}, which gives a cold {@link Publisher} (a
 * {@code Mono}, or a {@code Flux} for a {@code Flow}) that runs the function when subscribed. The
 * coroutine gets the caller's context without its {@link Job} (dispatcher, MDC or trace elements
 * carry over; cancellation reaches it through the subscription), as Spring's AOP does.
 *
 * <p>And makes an attempt's context current wherever its coroutine runs ({@link #withCurrentRetryContext}).
 *
 * <p>The only class of the module that refers to Kotlin types: it is loaded only for a {@code suspend}
 * function or recover method, so a Java application never loads it (an architecture test keeps it so).
 * Stateless and thread-safe.
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

	/**
	 * The {@code Continuation} an attempt of a suspend function is invoked with: the caller's, whose
	 * coroutine context also carries the attempt's context (current on this thread as the attempt starts,
	 * {@linkplain RetryContextScope#capture() as it can be kept}) as a {@link ThreadContextElement}. Spring AOP starts the function's coroutine in that coroutine
	 * context, so the attempt's context is {@link RetryTemplate#currentContext} each time the coroutine
	 * runs: as it starts on its dispatcher, after each resume, on any thread, and in the coroutines it
	 * starts or switches to ({@code withContext}), which inherit the element. The continuation itself is
	 * never resumed (Spring's proxy awaits the call's result on the caller's own).
	 * @param lastArgument the invocation's last argument: the caller's {@code Continuation}
	 * @return the continuation to invoke the attempt with, or {@code lastArgument} when it is not a
	 * continuation or no context is current
	 */
	static @Nullable Object withCurrentRetryContext(@Nullable Object lastArgument) {
		RetryContext attempt = RetryContextScope.capture();
		if (!(lastArgument instanceof Continuation<?> caller) || attempt == null) {
			return lastArgument;
		}
		return new AttemptContinuation<>(caller, caller.getContext().plus(new CurrentRetryContext(attempt)));
	}

	/** The caller's continuation, seen with another coroutine context; resuming it resumes the caller's. */
	private record AttemptContinuation<T>(Continuation<T> caller, CoroutineContext context) implements Continuation<T> {

		@Override
		public CoroutineContext getContext() {
			return this.context;
		}

		@Override
		public void resumeWith(Object result) {
			this.caller.resumeWith(result);
		}

	}

	/** Makes an attempt's context current on the thread its coroutine runs on, while it runs there. */
	private static final class CurrentRetryContext extends AbstractCoroutineContextElement
			implements ThreadContextElement<RetryContextScope> {

		private static final CoroutineContext.Key<CurrentRetryContext> KEY = new CoroutineContext.Key<>() {
		};

		private final RetryContext attempt;

		CurrentRetryContext(RetryContext attempt) {
			super(KEY);
			this.attempt = attempt;
		}

		@Override
		public RetryContextScope updateThreadContext(CoroutineContext context) {
			return RetryContextScope.enter(this.attempt);
		}

		@Override
		public void restoreThreadContext(CoroutineContext context, RetryContextScope scope) {
			scope.close();
		}

		@Override
		public String toString() {
			return "CurrentRetryContext[" + this.attempt + "]";
		}

	}

}
