package dev.retrykit.context;

import org.jspecify.annotations.Nullable;

/**
 * The state of one retried call: how many attempts failed so far, the last failure, and attributes
 * that the operation or listeners may keep between attempts.
 *
 * <p>A context belongs to the call in progress and is valid only until that call returns: the
 * engine reuses context objects between synchronous calls on the same thread, so code must not keep
 * a reference after the call. A stateful context lives in the context cache between calls. Not
 * thread-safe: it is used by one attempt at a time.
 */
public interface RetryContext {

	/**
	 * The context of the call in progress on this thread, the innermost one when retries are nested.
	 * @return the current context, or {@code null} outside a retried call
	 * @deprecated since 0.2, for removal in the next release: use
	 * {@link dev.retrykit.RetryTemplate#currentContext()} (the context now lives below the template that
	 * runs calls, so it no longer reaches into the engine); the recipe
	 * {@code dev.retrykit.migrate.RetrykitApiChanges} rewrites the calls
	 */
	@Deprecated(since = "0.2", forRemoval = true)
	static @Nullable RetryContext current() {
		return dev.retrykit.RetryTemplate.currentContext();
	}

	/** {@return the name of the instance (template) running the call} */
	String getName();

	/** {@return the number of failed attempts so far: 0 during the first attempt} */
	int getRetryCount();

	/**
	 * {@return the failure of the last failed attempt, or {@code null} if none failed yet or the last one
	 * returned a rejected result}
	 */
	@Nullable Throwable getLastThrowable();

	/** {@return the context of the enclosing retried call on this thread, or {@code null}} */
	@Nullable RetryContext getParent();

	/**
	 * Stops retrying: the call ends after the current attempt as if its attempts were exhausted.
	 */
	void setExhaustedOnly();

	/**
	 * How the call ended, as the engine counted it: set before {@link dev.retrykit.RetryListener#close} is told, so a
	 * listener reports the same outcome as the metrics.
	 * @return the outcome once the call ended, or {@code null} while it runs (and for contexts that are
	 * not a call's, such as a snapshot in a shared cache)
	 */
	default @Nullable CallOutcome getOutcome() {
		return null;
	}

	/**
	 * Why the call stopped retrying: set with {@link #getOutcome()} before
	 * {@link dev.retrykit.RetryListener#close} is told, for a call that did not succeed.
	 * @return the reason once a call ended without success, or {@code null} (while it runs, after a
	 * success, and for contexts that are not a call's)
	 */
	default @Nullable StopReason getStopReason() {
		return null;
	}

	/** {@return whether {@link #setExhaustedOnly()} was called} */
	boolean isExhaustedOnly();

	/**
	 * {@return the attribute's value, or {@code null}}
	 * @param name the attribute name
	 */
	@Nullable Object getAttribute(String name);

	/**
	 * Sets an attribute that lives as long as the call (or, for stateful retry, the cached context).
	 * @param name the attribute name
	 * @param value the value, or {@code null} to remove it
	 */
	void setAttribute(String name, @Nullable Object value);

	/**
	 * {@return whether the attribute is set}
	 * @param name the attribute name
	 */
	boolean hasAttribute(String name);

	/**
	 * The names of the attributes set, so that a context can be copied (for example into a
	 * {@link dev.retrykit.spi.RetryContextSnapshot} for a shared cache). The default has none: a
	 * context that keeps attributes should override it.
	 * @return the names, a snapshot that later changes do not affect
	 */
	default java.util.Set<String> attributeNames() {
		return java.util.Set.of();
	}

}
