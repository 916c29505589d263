package dev.retrykit.policy;

import java.util.Arrays;
import java.util.List;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/** Optimistic (any) or pessimistic (all) combination of policies. Immutable; equal when its kind and policies are. */
final class CompositeRetryPolicy implements RetryPolicy {

	static final RetryPolicy ALWAYS = new Constant(true, "always");

	static final RetryPolicy NEVER = new Constant(false, "never");

	private final RetryPolicy[] policies;

	private final boolean optimistic;

	CompositeRetryPolicy(List<RetryPolicy> policies, boolean optimistic) {
		if (policies.isEmpty()) {
			throw new IllegalArgumentException("A composite retry policy needs at least one policy");
		}
		this.policies = policies.toArray(new RetryPolicy[0]);
		this.optimistic = optimistic;
	}

	@Override
	public boolean canRetry(RetryContext context) {
		for (RetryPolicy policy : this.policies) {
			if (policy.canRetry(context) == this.optimistic) {
				return this.optimistic;
			}
		}
		return !this.optimistic;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof CompositeRetryPolicy that) && this.optimistic == that.optimistic
				&& Arrays.equals(this.policies, that.policies);
	}

	@Override
	public int hashCode() {
		return 31 * Arrays.hashCode(this.policies) + Boolean.hashCode(this.optimistic);
	}

	@Override
	public String toString() {
		return (this.optimistic ? "anyOf" : "allOf") + List.of(this.policies);
	}

	/** A policy that gives the same answer for every context. */
	private static final class Constant implements RetryPolicy {

		private final boolean canRetry;

		private final String text;

		Constant(boolean canRetry, String text) {
			this.canRetry = canRetry;
			this.text = text;
		}

		@Override
		public boolean canRetry(RetryContext context) {
			return this.canRetry;
		}

		@Override
		public String toString() {
			return this.text;
		}

	}

}
