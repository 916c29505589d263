package dev.retrykit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
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
 * Builds a {@link RetryConfig}. Each setter validates its argument and says what is allowed;
 * {@link #build()} copies the values, so the builder can be reused and a built config never changes.
 * Not thread-safe.
 */
public final class RetryConfigBuilder {

	/** The default of {@link #failbackCapacity(int)}. */
	public static final int DEFAULT_FAILBACK_CAPACITY = 10_000;

	int maxAttempts = 3;

	@Nullable Duration maxDuration;

	@Nullable Duration attemptTimeout;

	BackoffStrategy backoff = BackoffPolicy.defaults();

	final List<Class<? extends Throwable>> retryOn = new ArrayList<>();

	final List<Class<? extends Throwable>> ignore = new ArrayList<>();

	final List<Class<? extends Throwable>> notRecoverable = new ArrayList<>();

	boolean traverseCauses = true;

	@Nullable Predicate<? super Throwable> retryIf;

	@Nullable Predicate<Object> retryOnResult;

	@Nullable StatusCodes httpStatus;

	@Nullable StatusCodes grpcStatus;

	final List<StatusExtractor> statusExtractors = new ArrayList<>();

	@Nullable DelayHintExtractor delayHint;

	static final Duration DEFAULT_MAX_DELAY_HINT = Duration.ofSeconds(60);

	Duration maxDelayHint = DEFAULT_MAX_DELAY_HINT;

	@Nullable RetryPolicy policy;

	@Nullable CircuitBreakerConfig circuitBreaker;

	@Nullable RetryBudgetConfig budget;

	@Nullable String budgetName;

	boolean stateful;

	@Nullable HedgingConfig hedging;

	int failbackCapacity = DEFAULT_FAILBACK_CAPACITY;

	RetryConfigBuilder() {
	}

	RetryConfigBuilder(RetryConfig base) {
		Objects.requireNonNull(base, "base must not be null");
		this.maxAttempts = base.maxAttempts;
		this.maxDuration = base.maxDuration;
		this.attemptTimeout = base.attemptTimeout;
		this.backoff = base.backoff;
		this.retryOn.addAll(base.retryOn);
		this.ignore.addAll(base.ignore);
		this.notRecoverable.addAll(base.notRecoverable);
		this.traverseCauses = base.traverseCauses;
		this.retryIf = base.retryIf;
		this.retryOnResult = base.retryOnResult;
		this.httpStatus = base.httpStatus;
		this.grpcStatus = base.grpcStatus;
		this.statusExtractors.addAll(base.statusExtractors);
		this.delayHint = base.delayHint;
		this.maxDelayHint = base.maxDelayHint;
		this.policy = base.policy;
		this.circuitBreaker = base.circuitBreaker;
		this.budget = base.budget;
		this.budgetName = base.budgetName;
		this.stateful = base.stateful;
		this.hedging = base.hedging;
		this.failbackCapacity = base.failbackCapacity;
	}

	/**
	 * Sets the attempts allowed, counting the first (3 = 1 call + 2 retries). Default 3.
	 * @param maxAttempts 1 or more, or -1 for unlimited
	 * @return this builder
	 * @throws IllegalArgumentException if {@code maxAttempts} is 0 or less than -1
	 */
	public RetryConfigBuilder maxAttempts(int maxAttempts) {
		if (maxAttempts == 0 || maxAttempts < -1) {
			throw new IllegalArgumentException(
					"Invalid maxAttempts (" + maxAttempts + "): must be 1 or greater, or -1 for unlimited");
		}
		this.maxAttempts = maxAttempts;
		return this;
	}

	/**
	 * Sets a deadline measured from the first attempt: no attempt starts and no backoff waits past it
	 * (a wait that would cross it ends the call instead). Default: none.
	 * @param maxDuration a positive duration, or {@code null} or zero for none
	 * @return this builder
	 * @throws IllegalArgumentException if negative
	 */
	public RetryConfigBuilder maxDuration(@Nullable Duration maxDuration) {
		this.maxDuration = positiveOrNone("maxDuration", maxDuration);
		return this;
	}

	/**
	 * Sets the time limit of each attempt of an async call: a slower attempt fails with a
	 * {@link java.util.concurrent.TimeoutException} that is classified like any other failure.
	 * Default: none.
	 * @param attemptTimeout a positive duration, or {@code null} or zero for none
	 * @return this builder
	 * @throws IllegalArgumentException if negative
	 */
	public RetryConfigBuilder attemptTimeout(@Nullable Duration attemptTimeout) {
		this.attemptTimeout = positiveOrNone("attemptTimeout", attemptTimeout);
		return this;
	}

	/**
	 * Sets the backoff. Default {@link BackoffPolicy#defaults()}.
	 * @param backoff the strategy, a {@link BackoffPolicy} or a custom one
	 * @return this builder
	 */
	public RetryConfigBuilder backoff(BackoffStrategy backoff) {
		this.backoff = Objects.requireNonNull(backoff, "backoff must not be null");
		return this;
	}

	/**
	 * Replaces the failure types that are retried (subclasses match). Default: empty, which retries
	 * every {@link Exception} (never an {@link Error} unless listed).
	 * @param types the types
	 * @return this builder
	 */
	@SafeVarargs
	@SuppressWarnings("varargs") // safe: the array is only read, copied element by element into this builder's list
	public final RetryConfigBuilder retryOn(Class<? extends Throwable>... types) {
		return retryOn(Arrays.asList(types));
	}

	/**
	 * Sets the failure types that are retried.
	 * @param types the failure types that are retried, replacing earlier ones
	 * @see #retryOn(Class[])
	 * @return this builder
	 */
	public RetryConfigBuilder retryOn(Collection<Class<? extends Throwable>> types) {
		replace(this.retryOn, types, "retryOn");
		return this;
	}

	/**
	 * Replaces the failure types that are never retried (subclasses match); they win over
	 * {@link #retryOn}. Default: empty.
	 * @param types the types
	 * @return this builder
	 */
	@SafeVarargs
	@SuppressWarnings("varargs") // safe: the array is only read, copied element by element into this builder's list
	public final RetryConfigBuilder ignore(Class<? extends Throwable>... types) {
		return ignore(Arrays.asList(types));
	}

	/**
	 * Sets the failure types that are never retried.
	 * @param types the failure types that are never retried, replacing earlier ones
	 * @see #ignore(Class[])
	 * @return this builder
	 */
	public RetryConfigBuilder ignore(Collection<Class<? extends Throwable>> types) {
		replace(this.ignore, types, "ignore");
		return this;
	}

	/**
	 * Replaces the failure types that are never recovered (Spring Retry's {@code notRecoverable}): a
	 * call that ends with such a failure (subclasses match; the failure itself, not its causes) skips
	 * the recovery callback and ends as it would without one: a stateless call rethrows the failure
	 * unchanged, a stateful one throws {@link ExhaustedRetryException} with it as cause. Whether the
	 * failure is retried is not affected. Default: empty.
	 * @param types the types
	 * @return this builder
	 * @throws NullPointerException if a type is {@code null}
	 */
	@SafeVarargs
	@SuppressWarnings("varargs") // safe: the array is only read, copied element by element into this builder's list
	public final RetryConfigBuilder notRecoverable(Class<? extends Throwable>... types) {
		return notRecoverable(Arrays.asList(types));
	}

	/**
	 * Sets the failure types that are never recovered.
	 * @param types the failure types that are never recovered, replacing earlier ones
	 * @see #notRecoverable(Class[])
	 * @return this builder
	 */
	public RetryConfigBuilder notRecoverable(Collection<Class<? extends Throwable>> types) {
		replace(this.notRecoverable, types, "notRecoverable");
		return this;
	}

	/**
	 * Sets whether {@code retryOn}/{@code ignore} types also match causes of a failure. Default true.
	 * @param traverseCauses whether to walk the cause chain
	 * @return this builder
	 */
	public RetryConfigBuilder traverseCauses(boolean traverseCauses) {
		this.traverseCauses = traverseCauses;
		return this;
	}

	/**
	 * Sets a predicate that also makes a failure retryable (in addition to {@code retryOn}); with an
	 * empty {@code retryOn} it alone decides. {@code ignore} still wins. Default: none.
	 * @param retryIf the predicate, or {@code null}
	 * @return this builder
	 */
	public RetryConfigBuilder retryIf(@Nullable Predicate<? super Throwable> retryIf) {
		this.retryIf = retryIf;
		return this;
	}

	/**
	 * Retries when an attempt returns a result matching the predicate. When such retries are
	 * exhausted, recovery runs if there is one; otherwise the last result is returned. Default: none.
	 * @param retryOnResult the predicate, or {@code null}
	 * @return this builder
	 */
	public RetryConfigBuilder retryOnResult(@Nullable Predicate<Object> retryOnResult) {
		this.retryOnResult = retryOnResult;
		return this;
	}

	/**
	 * Retries only these HTTP status codes when a status extractor finds one in a failure; a failure
	 * without an HTTP status is classified by the other rules. Default: none.
	 * @param httpStatus the codes, e.g. {@code StatusCodes.parse("429,500-599", Kind.HTTP)}, or {@code null}
	 * @return this builder
	 */
	public RetryConfigBuilder httpStatus(@Nullable StatusCodes httpStatus) {
		this.httpStatus = requireKind(httpStatus, StatusExtractor.Kind.HTTP);
		return this;
	}

	/**
	 * Retries only these gRPC status codes; see {@link #httpStatus}. Default: none.
	 * @param grpcStatus the codes, or {@code null}
	 * @return this builder
	 */
	public RetryConfigBuilder grpcStatus(@Nullable StatusCodes grpcStatus) {
		this.grpcStatus = requireKind(grpcStatus, StatusExtractor.Kind.GRPC);
		return this;
	}

	/**
	 * Replaces the extractors that read status codes out of failures. Default: none.
	 * @param extractors the extractors
	 * @return this builder
	 */
	public RetryConfigBuilder statusExtractors(Collection<? extends StatusExtractor> extractors) {
		this.statusExtractors.clear();
		for (StatusExtractor extractor : extractors) {
			this.statusExtractors.add(Objects.requireNonNull(extractor, "statusExtractors must not contain null"));
		}
		return this;
	}

	/**
	 * Lets failures dictate the next delay (e.g. {@code Retry-After}); a hint replaces the computed
	 * backoff, capped at {@link #maxDelayHint} and still bounded by {@code maxDuration}. Default: none.
	 * @param delayHint the extractor, or {@code null}
	 * @return this builder
	 */
	public RetryConfigBuilder delayHint(@Nullable DelayHintExtractor delayHint) {
		this.delayHint = delayHint;
		return this;
	}

	/**
	 * Sets the ceiling of a delay hint. Default 60s.
	 * @param maxDelayHint zero or more
	 * @return this builder
	 * @throws IllegalArgumentException if negative
	 */
	public RetryConfigBuilder maxDelayHint(Duration maxDelayHint) {
		Objects.requireNonNull(maxDelayHint, "maxDelayHint must not be null");
		if (maxDelayHint.isNegative()) {
			throw new IllegalArgumentException(
					"Invalid maxDelayHint (" + Durations.format(maxDelayHint) + "): must be zero or greater");
		}
		this.maxDelayHint = maxDelayHint;
		return this;
	}

	/**
	 * Adds a policy that is asked after the built-in rules (a custom stop condition, a per-exception-type
	 * policy, a composite). Default: none.
	 * @param policy the policy, or {@code null}
	 * @return this builder
	 */
	public RetryConfigBuilder policy(@Nullable RetryPolicy policy) {
		this.policy = policy;
		return this;
	}

	/**
	 * Guards every attempt with a circuit breaker. Default: none.
	 * @param circuitBreaker the breaker's configuration, or {@code null} for none
	 * @return this builder
	 */
	public RetryConfigBuilder circuitBreaker(@Nullable CircuitBreakerConfig circuitBreaker) {
		this.circuitBreaker = circuitBreaker;
		return this;
	}

	/**
	 * Limits retries with a token budget, shared by every instance that names the same budget.
	 * Default: none.
	 * @param budget the budget's configuration, or {@code null} for none
	 * @param sharedName the budget's name, or {@code null} to use the instance's name
	 * @return this builder
	 */
	public RetryConfigBuilder budget(@Nullable RetryBudgetConfig budget, @Nullable String sharedName) {
		this.budget = budget;
		this.budgetName = (sharedName == null || sharedName.isBlank()) ? null : sharedName;
		return this;
	}

	/**
	 * Marks the instance's calls as stateful by default for integrations such as the
	 * {@code @Retryable} annotation (the template API chooses per call by passing a
	 * {@link RetryState}). Default false.
	 * @param stateful whether calls are stateful by default
	 * @return this builder
	 */
	public RetryConfigBuilder stateful(boolean stateful) {
		this.stateful = stateful;
		return this;
	}

	/**
	 * Makes the instance's async calls ({@link RetryTemplate#executeAsync}) hedge instead of backing off,
	 * and its stateless blocking calls ({@link RetryTemplate#execute}) too when the policy has an
	 * {@linkplain HedgingConfig#getExecutor() executor} to run their copies on: {@code maxAttempts} counts
	 * the copies in all, the first included; a hedged call does not use the backoff (blocking calls
	 * without an executor, and stateful calls, still do: they do not hedge). Only for idempotent
	 * operations, and the supplier (or callback) may be called from two threads at once (the timer's and
	 * the one a failed copy completed on). Default: none.
	 * @param hedging the policy, or {@code null} for none
	 * @return this builder
	 */
	public RetryConfigBuilder hedging(@Nullable HedgingConfig hedging) {
		this.hedging = hedging;
		return this;
	}

	/**
	 * Bounds the tasks that the instance's failback executor keeps pending, so that a long outage with
	 * many distinct keys cannot fill the heap: a submit of a key that is not pending while this many are
	 * is refused with a {@link java.util.concurrent.RejectedExecutionException} (the task does not run)
	 * and counted ({@code FailbackExecutor.rejectedCount()}); a key that is pending is always accepted
	 * (its new task replaces the pending one). Default {@value #DEFAULT_FAILBACK_CAPACITY}. An executor
	 * reads it when it is created ({@code RetryRegistry.failback(name)}).
	 * @param capacity 1 or more
	 * @return this builder
	 * @throws IllegalArgumentException if {@code capacity} is less than 1
	 */
	public RetryConfigBuilder failbackCapacity(int capacity) {
		this.failbackCapacity = atLeastOne("failbackCapacity", capacity);
		return this;
	}

	/**
	 * Builds a configuration from the values set so far; the builder can go on being used.
	 * @return the configuration
	 * @throws IllegalArgumentException if an enabled hedging policy meets unlimited attempts
	 * ({@code maxAttempts} -1) or more than {@value HedgingConfig#MAX_COPIES} ({@code maxAttempts} counts
	 * the copies of a hedged call), or sends every copy at once (delay zero) while its
	 * {@code maxExtraLoad} is below {@code maxAttempts} − 1, so that most calls could not send theirs
	 */
	public RetryConfig build() {
		HedgingConfig hedging = this.hedging;
		if (hedging != null && hedging.isEnabled()) {
			if (this.maxAttempts == -1 || this.maxAttempts > HedgingConfig.MAX_COPIES) {
				throw new IllegalArgumentException("Invalid maxAttempts (" + this.maxAttempts + ") with hedging: must be"
						+ " from 1 to " + HedgingConfig.MAX_COPIES + ", the copies of a hedged call in all");
			}
			Duration delay = hedging.getDelay();
			if (delay != null && delay.isZero() && hedging.getMaxExtraLoad() < this.maxAttempts - 1) {
				throw new IllegalArgumentException("Invalid maxExtraLoad (" + hedging.getMaxExtraLoad()
						+ ") with hedging delay 0 and maxAttempts " + this.maxAttempts + ": a delay of 0 sends "
						+ (this.maxAttempts - 1) + " extra copies with every call, so maxExtraLoad must be at least "
						+ (this.maxAttempts - 1) + "; raise maxExtraLoad, lower maxAttempts, or set a delay");
			}
		}
		return new RetryConfig(this);
	}

	/**
	 * {@return {@code value}, checked to be 1 or more}
	 * @param name how the message names the value
	 * @param value the value
	 * @throws IllegalArgumentException if {@code value} is less than 1
	 */
	static int atLeastOne(String name, int value) {
		if (value < 1) {
			throw new IllegalArgumentException("Invalid " + name + " (" + value + "): must be 1 or greater");
		}
		return value;
	}

	private static @Nullable Duration positiveOrNone(String name, @Nullable Duration value) {
		if (value == null || value.isZero()) {
			return null;
		}
		if (value.isNegative()) {
			throw new IllegalArgumentException("Invalid " + name + " (" + Durations.format(value)
					+ "): must be greater than zero, or zero for none");
		}
		return value;
	}

	private static @Nullable StatusCodes requireKind(@Nullable StatusCodes codes, StatusExtractor.Kind kind) {
		if (codes != null && codes.kind() != kind) {
			throw new IllegalArgumentException("Invalid status codes (" + codes + "): expected " + kind
					+ " codes but got " + codes.kind() + " codes");
		}
		return codes;
	}

	private static void replace(List<Class<? extends Throwable>> target, Collection<Class<? extends Throwable>> types,
			String name) {
		Objects.requireNonNull(types, name + " must not be null");
		target.clear();
		for (Class<? extends Throwable> type : types) {
			target.add(Objects.requireNonNull(type, name + " must not contain null"));
		}
	}

}
