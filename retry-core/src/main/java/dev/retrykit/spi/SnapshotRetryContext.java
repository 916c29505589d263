package dev.retrykit.spi;

import java.util.HashMap;
import java.util.Map;

import dev.retrykit.RetryContext;
import org.jspecify.annotations.Nullable;

/** A context continued from a {@link RetryContextSnapshot}. Not thread-safe, as every context. */
final class SnapshotRetryContext implements RetryContext {

	private final String name;

	private final int retryCount;

	private final @Nullable Throwable lastThrowable;

	private boolean exhaustedOnly;

	private final Map<String, Object> attributes;

	SnapshotRetryContext(String name, RetryContextSnapshot snapshot) {
		this.name = name;
		this.retryCount = snapshot.retryCount();
		this.exhaustedOnly = snapshot.exhaustedOnly();
		this.lastThrowable = (snapshot.lastFailureType() != null)
				? new RemoteFailureException(snapshot.lastFailureType(), snapshot.lastFailureMessage()) : null;
		this.attributes = new HashMap<>(snapshot.attributes());
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public int getRetryCount() {
		return this.retryCount;
	}

	@Override
	public @Nullable Throwable getLastThrowable() {
		return this.lastThrowable;
	}

	@Override
	public @Nullable RetryContext getParent() {
		return null;
	}

	@Override
	public void setExhaustedOnly() {
		this.exhaustedOnly = true;
	}

	@Override
	public boolean isExhaustedOnly() {
		return this.exhaustedOnly;
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.attributes.get(name);
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		if (value == null) {
			this.attributes.remove(name);
		}
		else {
			this.attributes.put(name, value);
		}
	}

	@Override
	public boolean hasAttribute(String name) {
		return this.attributes.containsKey(name);
	}

	@Override
	public String toString() {
		return "RetryContext[name=" + this.name + ", retryCount=" + this.retryCount + ", lastThrowable="
				+ this.lastThrowable + ", exhaustedOnly=" + this.exhaustedOnly + "]";
	}

}
