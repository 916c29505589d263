package dev.retrykit.spring.boot.autoconfigure.aop;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import dev.retrykit.RetryContext;
import dev.retrykit.RetryListener;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The retry listeners of the application, as one {@link RetryListener} registered on every instance: a
 * call of a {@code @Retryable} method is told to the listeners the method names
 * ({@code @Retryable(listeners = ...)}), every other call to the application's global {@code RetryListener}
 * beans. It also puts the intercepted {@link MethodInvocation} (method, arguments, target) into the call's
 * context under {@link #INVOCATION}, where any listener can read it with {@link #invocation(RetryContext)}.
 *
 * <p>The interceptor announces a call on its thread just before the call starts ({@link #announce}); the
 * call's {@code open}, which runs on that thread, takes the announcement and keeps it in the context, so
 * later callbacks (on any thread, for asynchronous calls) find it there. A failing listener does not keep the
 * others from being told: the first failure is rethrown once all are called, and the core counts and logs it
 * as any listener failure. Thread-safe.
 */
public final class MethodListeners {

	/**
	 * The context attribute that holds the intercepted {@link MethodInvocation} of a {@code @Retryable}
	 * method's call (not set for calls through a template, {@code retry.targets}, or {@code Mono}/{@code Flux}
	 * methods, whose calls start at subscription).
	 */
	public static final String INVOCATION = "retrykit.method-invocation";

	/** The context attribute that holds the listeners chosen by the method, when it chose. */
	private static final String CHOSEN = "retrykit.method-listeners";

	private final RetryListener[] global;

	private final RetryListener listener = new Dispatcher();

	/** The call about to start on this thread; a reused holder, so that announcing allocates nothing. */
	private final ThreadLocal<Announcement> announced = ThreadLocal.withInitial(Announcement::new);

	/**
	 * @param global the application's global listeners, in order
	 */
	public MethodListeners(List<? extends RetryListener> global) {
		this.global = global.toArray(new RetryListener[0]);
	}

	/**
	 * @param context a call's context
	 * @return the intercepted method call, with its method, arguments and target, or {@code null} when the call
	 * is not a {@code @Retryable} method's
	 */
	public static @Nullable MethodInvocation invocation(RetryContext context) {
		return (context.getAttribute(INVOCATION) instanceof MethodInvocation invocation) ? invocation : null;
	}

	/** @return the listener to register on every instance */
	public RetryListener listener() {
		return this.listener;
	}

	/** @return whether the application has listeners: only then is {@link #listener()} registered */
	public boolean hasGlobalListeners() {
		return this.global.length > 0;
	}

	/**
	 * Announces the call that is about to start on this thread; {@link #clear} must follow once it started.
	 * @param invocation the intercepted call
	 * @param chosen the listeners the method names, or {@code null} for the global ones
	 */
	void announce(MethodInvocation invocation, RetryListener @Nullable [] chosen) {
		Announcement announcement = this.announced.get();
		announcement.invocation = invocation;
		announcement.chosen = chosen;
	}

	/** Forgets an announcement that no call took (e.g. the call was rejected before it opened). */
	void clear() {
		Announcement announcement = this.announced.get();
		announcement.invocation = null;
		announcement.chosen = null;
	}

	private RetryListener[] listeners(RetryContext context) {
		return (context.getAttribute(CHOSEN) instanceof RetryListener[] chosen) ? chosen : this.global;
	}

	private static final class Announcement {

		@Nullable MethodInvocation invocation;

		RetryListener @Nullable [] chosen;

	}

	private final class Dispatcher implements RetryListener {

		@Override
		public boolean open(RetryContext context) {
			Announcement announcement = MethodListeners.this.announced.get();
			if (announcement.invocation != null) {
				context.setAttribute(INVOCATION, announcement.invocation);
				context.setAttribute(CHOSEN, announcement.chosen);
				clear();
			}
			Throwable failed = null;
			for (RetryListener listener : listeners(context)) {
				try {
					if (!listener.open(context)) {
						return false;
					}
				}
				catch (Throwable ex) {
					failed = (failed != null) ? failed : ex;
				}
			}
			rethrow(failed);
			return true;
		}

		@Override
		public void beforeAttempt(RetryContext context) {
			tell(context, false, listener -> listener.beforeAttempt(context));
		}

		@Override
		public void attemptReturned(RetryContext context) {
			tell(context, true, listener -> listener.attemptReturned(context));
		}

		@Override
		public void onSuccess(RetryContext context, @Nullable Object result) {
			tell(context, false, listener -> listener.onSuccess(context, result));
		}

		@Override
		public void onError(RetryContext context, @Nullable Throwable failure) {
			tell(context, false, listener -> listener.onError(context, failure));
		}

		@Override
		public void onRetry(RetryContext context, Duration delay) {
			tell(context, false, listener -> listener.onRetry(context, delay));
		}

		@Override
		public void close(RetryContext context, @Nullable Throwable failure) {
			tell(context, true, listener -> listener.close(context, failure));
		}

		/**
		 * Tells every listener of the call, in order or in reverse; one that throws does not keep the
		 * others from being told, and the first failure is rethrown once all were.
		 */
		private void tell(RetryContext context, boolean reverse, Consumer<RetryListener> callback) {
			RetryListener[] listeners = listeners(context);
			Throwable failed = null;
			for (int i = 0; i < listeners.length; i++) {
				try {
					callback.accept(listeners[reverse ? listeners.length - 1 - i : i]);
				}
				catch (Throwable ex) {
					failed = (failed != null) ? failed : ex;
				}
			}
			rethrow(failed);
		}

		private static void rethrow(@Nullable Throwable failed) {
			if (failed instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (failed instanceof Error error) {
				throw error;
			}
			if (failed != null) {
				throw new java.lang.reflect.UndeclaredThrowableException(failed);
			}
		}

		@Override
		public String toString() {
			return "MethodListeners" + java.util.Arrays.toString(MethodListeners.this.global);
		}

	}

}
