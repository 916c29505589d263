package dev.retrykit.context;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * A {@link RetryContext} that forwards every method to another context: the base of a view that changes
 * one or two answers (a policy that counts attempts per exception type, a hedged copy's own retry count)
 * and must not forget the rest. Subclasses override what they change; whatever {@code RetryContext} gains
 * later is forwarded here once, not in each view.
 *
 * <p>As thread-safe as the context it forwards to (a call's context is used by one attempt at a time).
 */
public abstract class ForwardingRetryContext implements RetryContext {

	private final RetryContext delegate;

	/**
	 * A view of the given context.
	 * @param delegate the context every method forwards to
	 */
	protected ForwardingRetryContext(RetryContext delegate) {
		this.delegate = delegate;
	}

	/** {@return the context this view forwards to} */
	protected final RetryContext delegate() {
		return this.delegate;
	}

	@Override
	public String getName() {
		return this.delegate.getName();
	}

	@Override
	public int getRetryCount() {
		return this.delegate.getRetryCount();
	}

	@Override
	public @Nullable Throwable getLastThrowable() {
		return this.delegate.getLastThrowable();
	}

	@Override
	public @Nullable RetryContext getParent() {
		return this.delegate.getParent();
	}

	@Override
	public void setExhaustedOnly() {
		this.delegate.setExhaustedOnly();
	}

	@Override
	public boolean isExhaustedOnly() {
		return this.delegate.isExhaustedOnly();
	}

	@Override
	public @Nullable CallOutcome getOutcome() {
		return this.delegate.getOutcome();
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.delegate.getAttribute(name);
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		this.delegate.setAttribute(name, value);
	}

	@Override
	public boolean hasAttribute(String name) {
		return this.delegate.hasAttribute(name);
	}

	@Override
	public Set<String> attributeNames() {
		return this.delegate.attributeNames();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + this.delegate + "]";
	}

}
