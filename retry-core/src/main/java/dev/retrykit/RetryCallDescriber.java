package dev.retrykit;


import dev.retrykit.context.RetryContext;
/**
 * An operation that tells the listeners of its call what the call is about, by putting it into the call's
 * context before they hear of the call. It travels with the call: the engine asks the operation itself,
 * whatever thread the call starts on, so nothing is handed over through the calling thread.
 *
 * <p>An operation handed to a {@link RetryTemplate} (a {@link RetryCallback}, a {@link RetryFunction}, or the
 * {@code Supplier} or {@code Function} of {@link RetryTemplate#executeAsync}) or to a
 * {@link dev.retrykit.failback.FailbackExecutor} (its task) may also implement this interface. {@link #describe} is then called once per call, when the call
 * opens, on the thread that starts it, before the first listener's {@link RetryListener#open}; a stateful call
 * that continues a cached context is described again, by the operation of the continuing call. It is called
 * only when the call has listeners (nothing else would read what it sets before the operation runs), so
 * that describing costs nothing on an instance without listeners. What it throws, an {@link Error} included,
 * is counted and logged as a listener's failure ({@link RetryMetrics#getListenerFailures()}), and the call
 * goes on.
 *
 * <p>Implementations must be thread-safe when one operation object serves several calls.
 */
@FunctionalInterface
public interface RetryCallDescriber {

	/**
	 * Puts what the call's listeners should know about it into its context, typically as
	 * {@linkplain RetryContext#setAttribute attributes}.
	 * @param context the call's context, before any listener heard of the call
	 */
	void describe(RetryContext context);

}
