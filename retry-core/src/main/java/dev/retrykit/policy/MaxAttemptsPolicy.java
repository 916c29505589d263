package dev.retrykit.policy;

import dev.retrykit.RetryContext;

/** A limit on attempts, counting the first. Immutable. */
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
	public String toString() {
		return "maxAttempts(" + this.maxAttempts + ")";
	}

}
