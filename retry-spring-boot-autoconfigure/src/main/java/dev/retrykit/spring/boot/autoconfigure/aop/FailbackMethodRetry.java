package dev.retrykit.spring.boot.autoconfigure.aop;

import java.lang.reflect.UndeclaredThrowableException;

import dev.retrykit.failback.FailbackExecutor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A {@code @Failback} method: the call is handed to the instance's {@link FailbackExecutor} under its
 * key and returns as soon as the first attempt ends, whatever its outcome; a failed call is retried in
 * the background (at most one pending retry per key, a new failure replacing it). Each background
 * attempt runs the rest of the interceptor chain again. Checked failures reach the policy wrapped in an
 * {@link UndeclaredThrowableException} (retry-on/ignore match causes). Thread-safe.
 */
final class FailbackMethodRetry implements MethodRetry {

	private final FailbackExecutor executor;

	private final StatefulKey key;

	FailbackMethodRetry(FailbackExecutor executor, StatefulKey key) {
		this.executor = executor;
		this.key = key;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) {
		int mark = InvocationRewinder.mark(invocation);
		this.executor.submit(this.key.of(invocation), () -> {
			try {
				InvocationRewinder.proceed(invocation, mark);
			}
			catch (RuntimeException | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new UndeclaredThrowableException(ex);
			}
		});
		return null;
	}

}
