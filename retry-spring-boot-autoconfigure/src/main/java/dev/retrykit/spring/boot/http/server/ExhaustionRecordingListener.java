package dev.retrykit.spring.boot.http.server;

import dev.retrykit.RetryListener;
import dev.retrykit.context.RetryContext;
import dev.retrykit.context.StopReason;
import org.jspecify.annotations.Nullable;

/**
 * Records into the request's {@link ExhaustionMarker} every retrykit call that gives up during the request: a call
 * that ends with a failure whose {@link RetryContext#getStopReason() stop reason} is an
 * {@linkplain StopReason#isExhaustion() exhaustion}. A call that succeeds, that is recovered, or that stops on a
 * failure it does not retry is not recorded.
 *
 * <p>The marker is found when the call opens, on the thread that starts it ({@link ExhaustionMarker#current()}),
 * unless the caller put it into the call's context before ({@link #ATTRIBUTE}, as the reactive paths do from the
 * Reactor {@code Context}); it is kept in the context, so that a call that closes on another thread (an async
 * retry, a hedged copy) still records into its request's marker, and taken out when the call closes (a stateful
 * call's context outlives the request). Registered on every instance, as every {@code RetryListener} bean is; a
 * call outside any request costs one thread-local read. Thread-safe and stateless.
 */
public final class ExhaustionRecordingListener implements RetryListener {

	/** The context attribute that holds the call's request marker while the call runs. */
	public static final String ATTRIBUTE = ExhaustionMarker.class.getName();

	@Override
	public boolean open(RetryContext context) {
		if (!(context.getAttribute(ATTRIBUTE) instanceof ExhaustionMarker)) {
			ExhaustionMarker marker = ExhaustionMarker.current();
			if (marker != null) {
				context.setAttribute(ATTRIBUTE, marker);
			}
		}
		return true;
	}

	@Override
	public void close(RetryContext context, @Nullable Throwable failure) {
		if (!(context.getAttribute(ATTRIBUTE) instanceof ExhaustionMarker marker)) {
			return;
		}
		context.setAttribute(ATTRIBUTE, null);
		StopReason reason = context.getStopReason();
		if (failure != null && reason != null && reason.isExhaustion()) {
			marker.record(context.getName());
		}
	}

	@Override
	public String toString() {
		return "ExhaustionRecordingListener";
	}

}
