package dev.retrykit.policy;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/** A limit on attempts, counting the first. Immutable; equal to another of the same limit. */
final class MaxAttemptsPolicy implements RetryPolicy {

	private final int maxAttempts;

	MaxAttemptsPolicy(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	@Override
	public boolean canRetry(RetryContext context) {
		return context.getRetryCount() < this.maxAttempts;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof MaxAttemptsPolicy that) && this.maxAttempts == that.maxAttempts;
	}

	@Override
	public int hashCode() {
		return this.maxAttempts;
	}

	@Override
	public String toString() {
		return "maxAttempts(" + this.maxAttempts + ")";
	}

}
