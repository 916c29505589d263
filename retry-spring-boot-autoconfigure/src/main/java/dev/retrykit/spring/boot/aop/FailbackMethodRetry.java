package dev.retrykit.spring.boot.aop;

import dev.retrykit.failback.FailbackExecutor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A {@code @Failback} method: the call is handed to the instance's {@link FailbackExecutor} under its
 * key and returns as soon as the first attempt ends, whatever its outcome; a failed call is retried in
 * the background (at most one pending retry per key, a new failure replacing it). Each background
 * attempt runs the rest of the interceptor chain again. Every failure, checked ones included, reaches
 * the executor unchanged, so the policy, the listeners, the events and the endpoint see the method's own
 * exception. Background attempts run in the caller's {@link CallerContext} (trace, MDC, security
 * context); its listeners learn the invocation ({@link MethodListeners}). A call that the executor refuses because it is full (its capacity of pending tasks, none of
 * them with this key) throws the executor's {@link java.util.concurrent.RejectedExecutionException} to the
 * caller, and the method does not run: returning as if accepted would lose the call silently. Thread-safe.
 * @param executor the instance's failback executor
 * @param key the key of a call's pending retry
 */
record FailbackMethodRetry(FailbackExecutor executor, StatefulKey key) implements MethodRetry {

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) {
		this.executor.submit(this.key.of(invocation), new Task(invocation, CallerContext.capture()));
		return null;
	}

	/** The call's task, run once per attempt; tells the call's listeners its invocation. */
	private static final class Task extends InvocationAttempt implements Runnable {

		Task(MethodInvocation invocation, CallerContext caller) {
			super(invocation, caller, null);
		}

		@Override
		public void run() {
			try {
				// A failback executor hands its task no context; its calls never hedge.
				proceed(null);
			}
			catch (Throwable ex) {
				// The executor catches any Throwable from the task; wrapping a checked one would hide it.
				throw FailbackMethodRetry.<RuntimeException>rethrow(ex);
			}
		}

	}

	/**
	 * Throws {@code failure} itself, checked or not: the compiler is told it is an {@code E}.
	 * @return never returns; declared so that callers can write {@code throw rethrow(failure)}
	 */
	@SuppressWarnings("unchecked")
	private static <E extends Throwable> RuntimeException rethrow(Throwable failure) throws E {
		throw (E) failure;
	}

}
