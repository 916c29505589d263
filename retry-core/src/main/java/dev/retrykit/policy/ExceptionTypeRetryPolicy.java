package dev.retrykit.policy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * A different policy for each type of failure: the policy registered for the closest superclass of
 * the last failure decides; failures of no registered type use the fallback policy. A rejected result
 * (no exception) also uses the fallback. Every policy sees the call's total failures; to count each
 * type's failures separately, use {@link PerExceptionTypeRetryPolicy}. Immutable and thread-safe; equal to
 * another with the same policies for the same types and the same fallback.
 *
 * <pre>{@code
 * RetryPolicy policy = RetryPolicy.byExceptionTypeCountingAllFailures()
 *     .on(SocketTimeoutException.class, RetryPolicy.maxAttempts(5))
 *     .on(ConnectException.class, RetryPolicy.maxAttempts(2))
 *     .otherwise(RetryPolicy.never())
 *     .build();
 * }</pre>
 */
public final class ExceptionTypeRetryPolicy implements RetryPolicy {

	private final Map<Class<? extends Throwable>, RetryPolicy> policies;

	private final RetryPolicy fallback;

	private ExceptionTypeRetryPolicy(Map<Class<? extends Throwable>, RetryPolicy> policies, RetryPolicy fallback) {
		// In registration order, so that toString (the effective config the actuator shows) is the same
		// on every run; lookups are by exact type up the superclass chain, so order never decides a match.
		this.policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
		this.fallback = fallback;
	}

	/** {@return a builder whose fallback is {@link RetryPolicy#never()}} */
	public static Builder builder() {
		return new Builder();
	}

	@Override
	public boolean canRetry(RetryContext context) {
		Throwable failure = context.getLastThrowable();
		RetryPolicy policy = (failure != null) ? policyFor(failure.getClass()) : null;
		return ((policy != null) ? policy : this.fallback).canRetry(context);
	}

	private @Nullable RetryPolicy policyFor(Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			RetryPolicy policy = this.policies.get(candidate);
			if (policy != null) {
				return policy;
			}
		}
		return null;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof ExceptionTypeRetryPolicy that) && this.policies.equals(that.policies)
				&& this.fallback.equals(that.fallback);
	}

	@Override
	public int hashCode() {
		return 31 * this.policies.hashCode() + this.fallback.hashCode();
	}

	@Override
	public String toString() {
		return "byExceptionType" + this.policies + " otherwise " + this.fallback;
	}

	/** Builds an {@link ExceptionTypeRetryPolicy}. Not thread-safe. */
	public static final class Builder {

		private final Map<Class<? extends Throwable>, RetryPolicy> policies = new LinkedHashMap<>();

		private RetryPolicy fallback = RetryPolicy.never();

		private Builder() {
		}

		/**
		 * Maps a failure type to the policy that decides for it.
		 * @param type the failure type (subclasses match unless they have a closer entry)
		 * @param policy the policy for it
		 * @return this builder
		 */
		public Builder on(Class<? extends Throwable> type, RetryPolicy policy) {
			this.policies.put(Objects.requireNonNull(type, "type must not be null"),
					Objects.requireNonNull(policy, "policy must not be null"));
			return this;
		}

		/**
		 * Sets the policy for failures of no registered type.
		 * @param policy the policy for failures of no registered type (default: never)
		 * @return this builder
		 */
		public Builder otherwise(RetryPolicy policy) {
			this.fallback = Objects.requireNonNull(policy, "policy must not be null");
			return this;
		}

		/**
		 * Builds the policy.
		 * @return the policy
		 */
		public ExceptionTypeRetryPolicy build() {
			return new ExceptionTypeRetryPolicy(this.policies, this.fallback);
		}

	}

}
