package dev.retrykit.internal;

import java.util.HashSet;
import java.util.Set;

import dev.retrykit.context.ForwardingRetryContext;
import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * What a hedged call's listeners are told about one of its copies: the call's context, seen from that
 * copy. Its retry count is the copy's number less one, and its attribute {@value HedgeCopy#HEDGED} is
 * {@code false} in the first copy and {@code true} in every later one, so that a listener keeping
 * something per attempt (an observation) can tell the copies in flight apart; everything else (other
 * attributes, the last failure, exhausted-only, the outcome) is the call's own, forwarded by
 * {@link ForwardingRetryContext}. Used by one callback at a time, as the call's context is.
 */
final class HedgeCopyContext extends ForwardingRetryContext {

	private final int number;

	private HedgeCopyContext(MutableRetryContext call, int number) {
		super(call);
		this.number = number;
	}

	/**
	 * What the listeners are told about copy {@code number} of a call: its {@code HedgeCopyContext}, or
	 * the call's own context when the instance has no listener (nothing is allocated then).
	 */
	static RetryContext told(RetryRuntime runtime, MutableRetryContext call, int number) {
		return runtime.listeners.isEmpty() ? call : new HedgeCopyContext(call, number);
	}

	@Override
	public int getRetryCount() {
		return this.number - 1;
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return HedgeCopy.HEDGED.equals(name) ? Boolean.valueOf(this.number > 1) : delegate().getAttribute(name);
	}

	/** Sets the call's attribute; {@value HedgeCopy#HEDGED} is the engine's and stays as it is. */
	@Override
	public void setAttribute(String name, @Nullable Object value) {
		if (!HedgeCopy.HEDGED.equals(name)) {
			delegate().setAttribute(name, value);
		}
	}

	@Override
	public boolean hasAttribute(String name) {
		return HedgeCopy.HEDGED.equals(name) || delegate().hasAttribute(name);
	}

	@Override
	public Set<String> attributeNames() {
		Set<String> names = new HashSet<>(delegate().attributeNames());
		names.add(HedgeCopy.HEDGED);
		return Set.copyOf(names);
	}

	@Override
	public String toString() {
		return "RetryContext[name=" + getName() + ", copy=" + this.number + ", retryCount=" + getRetryCount() + "]";
	}

}
