package dev.retrykit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.hedging.HedgingConfig;
import dev.retrykit.text.Durations;
import dev.retrykit.policy.RetryPolicy;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.BackoffStrategy;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.StatusExtractor;
import org.jspecify.annotations.Nullable;

/**
 * The immutable configuration of a retry instance: how many attempts, how long, which failures and
 * results are retried, how long to wait, and the optional circuit breaker and retry budget.
 *
 * <p>Built with {@link #builder()} (the documented defaults) or {@link #builder(RetryConfig)}, which
 * starts from an existing configuration: that is how a named instance inherits from a shared base.
 * Thread-safe; every list it returns is unmodifiable.
 *
 * <p>Two configurations are {@linkplain #equals(Object) equal} when every setting is: values (counts,
 * durations, type lists, status codes, backoff, breaker and budget settings, policies built by
 * {@link RetryPolicy}) by value, and the user's own objects (predicates, extractors, custom strategies)
 * as their own {@code equals} says, which for a lambda is identity. That is how a live change finds the
 * instances it changes.
 */
public final class RetryConfig {

	private static final RetryConfig DEFAULTS = new RetryConfigBuilder().build();

	final int maxAttempts;

	final @Nullable Duration maxDuration;

	final @Nullable Duration attemptTimeout;

	final BackoffStrategy backoff;

	final List<Class<? extends Throwable>> retryOn;

	final List<Class<? extends Throwable>> ignore;

	final List<Class<? extends Throwable>> notRecoverable;

	final boolean traverseCauses;

	final @Nullable Predicate<? super Throwable> retryIf;

	final @Nullable Predicate<Object> retryOnResult;

	final @Nullable StatusCodes httpStatus;

	final @Nullable StatusCodes grpcStatus;

	final List<StatusExtractor> statusExtractors;

	final @Nullable DelayHintExtractor delayHint;

	final Duration maxDelayHint;

	final @Nullable RetryPolicy policy;

	final @Nullable CircuitBreakerConfig circuitBreaker;

	final @Nullable RetryBudgetConfig budget;

	final @Nullable String budgetName;

	final boolean stateful;

	final @Nullable HedgingConfig hedging;

	final int failbackCapacity;

	RetryConfig(RetryConfigBuilder builder) {
		this.maxAttempts = builder.maxAttempts;
		this.maxDuration = builder.maxDuration;
		this.attemptTimeout = builder.attemptTimeout;
		this.backoff = builder.backoff;
		this.retryOn = List.copyOf(builder.retryOn);
		this.ignore = List.copyOf(builder.ignore);
		this.notRecoverable = List.copyOf(builder.notRecoverable);
		this.traverseCauses = builder.traverseCauses;
		this.retryIf = builder.retryIf;
		this.retryOnResult = builder.retryOnResult;
		this.httpStatus = builder.httpStatus;
		this.grpcStatus = builder.grpcStatus;
		this.statusExtractors = List.copyOf(builder.statusExtractors);
		this.delayHint = builder.delayHint;
		this.maxDelayHint = builder.maxDelayHint;
		this.policy = builder.policy;
		this.circuitBreaker = builder.circuitBreaker;
		this.budget = builder.budget;
		this.budgetName = builder.budgetName;
		this.stateful = builder.stateful;
		this.hedging = builder.hedging;
		this.failbackCapacity = builder.failbackCapacity;
	}

	/** {@return the default configuration: 3 attempts, exponential backoff from 100ms (x2, at most 10s)} */
	public static RetryConfig defaults() {
		return DEFAULTS;
	}

	/** {@return a builder that starts from the defaults} */
	public static RetryConfigBuilder builder() {
		return new RetryConfigBuilder();
	}

	/**
	 * {@return a builder that starts from every value of {@code base}}
	 * @param base the configuration to start from
	 */
	public static RetryConfigBuilder builder(RetryConfig base) {
		return new RetryConfigBuilder(base);
	}

	/** {@return attempts allowed counting the first; -1 = unlimited (default 3)} */
	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	/** {@return the deadline from the first attempt after which no attempt starts, or {@code null} for none} */
	public @Nullable Duration getMaxDuration() {
		return this.maxDuration;
	}

	/** {@return the time limit of each async attempt, or {@code null} for none} */
	public @Nullable Duration getAttemptTimeout() {
		return this.attemptTimeout;
	}

	/** {@return the backoff strategy (default {@link BackoffPolicy#defaults()})} */
	public BackoffStrategy getBackoff() {
		return this.backoff;
	}

	/** {@return failure types that are retried (empty = every {@link Exception})} */
	public List<Class<? extends Throwable>> getRetryOn() {
		return this.retryOn;
	}

	/** {@return failure types that are never retried; they win over {@link #getRetryOn()}} */
	public List<Class<? extends Throwable>> getIgnore() {
		return this.ignore;
	}

	/**
	 * {@return failure types that are never recovered: a call ending with one skips its recovery
	 * (default empty)}
	 */
	public List<Class<? extends Throwable>> getNotRecoverable() {
		return this.notRecoverable;
	}

	/** {@return whether failure types are also matched against the cause chain (default true)} */
	public boolean isTraverseCauses() {
		return this.traverseCauses;
	}

	/** {@return an extra predicate that makes a failure retryable, or {@code null}} */
	public @Nullable Predicate<? super Throwable> getRetryIf() {
		return this.retryIf;
	}

	/** {@return the predicate on results that asks for a retry, or {@code null}} */
	public @Nullable Predicate<Object> getRetryOnResult() {
		return this.retryOnResult;
	}

	/** {@return the HTTP status codes that are retried, or {@code null} when HTTP status is not matched} */
	public @Nullable StatusCodes getHttpStatus() {
		return this.httpStatus;
	}

	/** {@return the gRPC status codes that are retried, or {@code null} when gRPC status is not matched} */
	public @Nullable StatusCodes getGrpcStatus() {
		return this.grpcStatus;
	}

	/** {@return the extractors that read status codes out of failures} */
	public List<StatusExtractor> getStatusExtractors() {
		return this.statusExtractors;
	}

	/** {@return the delay-hint extractor (e.g. {@code Retry-After}), or {@code null}} */
	public @Nullable DelayHintExtractor getDelayHint() {
		return this.delayHint;
	}

	/** {@return the ceiling of a delay hint (default 60s)} */
	public Duration getMaxDelayHint() {
		return this.maxDelayHint;
	}

	/** {@return the additional retry policy, or {@code null}} */
	public @Nullable RetryPolicy getPolicy() {
		return this.policy;
	}

	/** {@return the circuit breaker configuration, or {@code null} when the instance has none} */
	public @Nullable CircuitBreakerConfig getCircuitBreaker() {
		return this.circuitBreaker;
	}

	/** {@return the retry budget configuration, or {@code null} when the instance has none} */
	public @Nullable RetryBudgetConfig getBudget() {
		return this.budget;
	}

	/** {@return the name under which the budget is shared, or {@code null} for the instance's own name} */
	public @Nullable String getBudgetName() {
		return this.budgetName;
	}

	/**
	 * {@return whether calls made through integrations such as the {@code @Retryable} annotation are
	 * stateful by default (default false); the template API chooses per call by passing a
	 * {@link RetryState}}
	 */
	public boolean isStateful() {
		return this.stateful;
	}

	/**
	 * {@return the hedging policy, or {@code null} when the instance does not hedge (a disabled policy
	 * is kept as given, so that it shows in {@link #toString()}); see {@link #isHedging()}}
	 */
	public @Nullable HedgingConfig getHedging() {
		return this.hedging;
	}

	/**
	 * {@return whether the instance hedges: a hedging policy is set and enabled (its async calls hedge, and its
	 * stateless blocking calls when the policy has an executor)}
	 */
	public boolean isHedging() {
		return this.hedging != null && this.hedging.isEnabled();
	}

	/**
	 * {@return the most tasks the instance's failback executor keeps pending (default
	 * {@value RetryConfigBuilder#DEFAULT_FAILBACK_CAPACITY}); a submit of a new key beyond it is refused}
	 */
	public int getFailbackCapacity() {
		return this.failbackCapacity;
	}

	/**
	 * Compares every setting, so that a configuration mapped again from unchanged properties equals the
	 * one it replaces; see the class comment for how each kind of setting is compared.
	 * @param other the object to compare with
	 * @return whether {@code other} is a configuration with the same settings
	 */
	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		return (other instanceof RetryConfig that) && this.maxAttempts == that.maxAttempts
				&& this.traverseCauses == that.traverseCauses && this.stateful == that.stateful
				&& Objects.equals(this.maxDuration, that.maxDuration)
				&& Objects.equals(this.attemptTimeout, that.attemptTimeout) && this.backoff.equals(that.backoff)
				&& this.retryOn.equals(that.retryOn) && this.ignore.equals(that.ignore)
				&& this.notRecoverable.equals(that.notRecoverable) && Objects.equals(this.retryIf, that.retryIf)
				&& Objects.equals(this.retryOnResult, that.retryOnResult)
				&& Objects.equals(this.httpStatus, that.httpStatus) && Objects.equals(this.grpcStatus, that.grpcStatus)
				&& this.statusExtractors.equals(that.statusExtractors) && Objects.equals(this.delayHint, that.delayHint)
				&& this.maxDelayHint.equals(that.maxDelayHint) && Objects.equals(this.policy, that.policy)
				&& Objects.equals(this.circuitBreaker, that.circuitBreaker) && Objects.equals(this.budget, that.budget)
				&& Objects.equals(this.budgetName, that.budgetName) && this.failbackCapacity == that.failbackCapacity
				&& Objects.equals(this.hedging, that.hedging);
	}

	/** {@return a hash of the settings {@link #equals(Object)} compares} */
	@Override
	public int hashCode() {
		return Objects.hash(this.maxAttempts, this.maxDuration, this.attemptTimeout, this.backoff, this.retryOn,
				this.ignore, this.notRecoverable, this.traverseCauses, this.retryIf, this.retryOnResult,
				this.httpStatus, this.grpcStatus, this.statusExtractors, this.delayHint, this.maxDelayHint,
				this.policy, this.circuitBreaker, this.budget, this.budgetName, this.stateful, this.failbackCapacity,
				this.hedging);
	}

	/**
	 * The effective configuration, for logs: every setting that is set, defaults of optional ones left out.
	 * @return a readable description of this configuration
	 */
	@Override
	public String toString() {
		StringBuilder text = new StringBuilder("RetryConfig[maxAttempts=").append(this.maxAttempts);
		if (this.maxDuration != null) {
			text.append(", maxDuration=").append(Durations.format(this.maxDuration));
		}
		if (this.attemptTimeout != null) {
			text.append(", attemptTimeout=").append(Durations.format(this.attemptTimeout));
		}
		text.append(", backoff=").append(this.backoff);
		appendIfSet(text, "retryOn", this.retryOn.isEmpty() ? null : names(this.retryOn));
		appendIfSet(text, "ignore", this.ignore.isEmpty() ? null : names(this.ignore));
		appendIfSet(text, "notRecoverable", this.notRecoverable.isEmpty() ? null : names(this.notRecoverable));
		if (!this.traverseCauses) {
			text.append(", traverseCauses=false");
		}
		appendIfSet(text, "retryIf", this.retryIf);
		appendIfSet(text, "retryOnResult", this.retryOnResult);
		appendIfSet(text, "httpStatus", this.httpStatus);
		appendIfSet(text, "grpcStatus", this.grpcStatus);
		appendIfSet(text, "statusExtractors", this.statusExtractors.isEmpty() ? null : this.statusExtractors);
		appendIfSet(text, "delayHint", this.delayHint);
		if (!this.maxDelayHint.equals(RetryConfigBuilder.DEFAULT_MAX_DELAY_HINT)) {
			text.append(", maxDelayHint=").append(Durations.format(this.maxDelayHint));
		}
		appendIfSet(text, "policy", this.policy);
		appendIfSet(text, "circuitBreaker", this.circuitBreaker);
		appendIfSet(text, "budget", this.budget);
		appendIfSet(text, "budgetName", this.budgetName);
		if (this.stateful) {
			text.append(", stateful=true");
		}
		appendIfSet(text, "hedging", this.hedging);
		if (this.failbackCapacity != RetryConfigBuilder.DEFAULT_FAILBACK_CAPACITY) {
			text.append(", failbackCapacity=").append(this.failbackCapacity);
		}
		return text.append(']').toString();
	}

	private static List<String> names(List<Class<? extends Throwable>> types) {
		return types.stream().map(Class::getName).toList();
	}

	private static void appendIfSet(StringBuilder text, String name, @Nullable Object value) {
		if (value != null) {
			text.append(", ").append(name).append('=').append(value);
		}
	}

}
