package dev.retrykit.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import dev.retrykit.context.CallOutcome;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/** A plain context for policy tests: counts failures, keeps attributes, ends with an outcome. */
public final class SimpleRetryContext implements RetryContext {

	private final String name;

	private final Map<String, Object> attributes = new LinkedHashMap<>();

	private int retryCount;

	private @Nullable Throwable lastThrowable;

	private boolean exhaustedOnly;

	private @Nullable CallOutcome outcome;

	public SimpleRetryContext(String name) {
		this.name = name;
	}

	/** Records a failed attempt. */
	public void fail(Throwable failure) {
		this.retryCount++;
		this.lastThrowable = failure;
	}

	/** Ends the call. */
	public void end(CallOutcome outcome) {
		this.outcome = outcome;
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
	public @Nullable CallOutcome getOutcome() {
		return this.outcome;
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
	public Set<String> attributeNames() {
		return Set.copyOf(this.attributes.keySet());
	}

}
