package dev.retrykit.policy;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

import dev.retrykit.context.RetryContext;

/**
 * Decides whether a failed call may be retried, given its context (the failed attempts so far and the
 * last failure). A policy is stateless: all per-call state lives in the {@link RetryContext}.
 *
 * <p>A template always applies its configured {@code max-attempts}, {@code max-duration} and exception
 * classification first; a policy set with {@code RetryConfigBuilder#policy} is asked in addition, so
 * it can only stop retries earlier (a custom stop condition, a per-exception-type limit, ...).
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface RetryPolicy {

	/**
	 * {@return whether another attempt may follow}
	 * @param context the context of the call, after its last failure was counted
	 */
	boolean canRetry(RetryContext context);

	/**
	 * A policy that always allows another attempt. As a template's policy it adds no limit of its own:
	 * the template's {@code max-attempts} still applies, so retrying without limit is
	 * {@code maxAttempts(-1)} on the template.
	 * @return the policy
	 */
	static RetryPolicy always() {
		return CompositeRetryPolicy.ALWAYS;
	}

	/** {@return a policy that never allows another attempt} */
	static RetryPolicy never() {
		return CompositeRetryPolicy.NEVER;
	}

	/**
	 * A limit on attempts, counting the first one.
	 * @param maxAttempts the attempts allowed, 1 or more, or -1 for unlimited
	 * @return the policy
	 * @throws IllegalArgumentException if {@code maxAttempts} is 0 or less than -1
	 */
	static RetryPolicy maxAttempts(int maxAttempts) {
		if (maxAttempts == 0 || maxAttempts < -1) {
			throw new IllegalArgumentException(
					"Invalid maxAttempts (" + maxAttempts + "): must be 1 or greater, or -1 for unlimited");
		}
		return (maxAttempts == -1) ? always() : new MaxAttemptsPolicy(maxAttempts);
	}

	/**
	 * A custom stop condition.
	 * @param stopCondition returns {@code true} when the call must stop retrying
	 * @return a policy that allows another attempt while the condition is false
	 */
	static RetryPolicy stopWhen(Predicate<? super RetryContext> stopCondition) {
		Objects.requireNonNull(stopCondition, "stopCondition must not be null");
		return context -> !stopCondition.test(context);
	}

	/**
	 * An optimistic composite: another attempt is allowed if any of the policies allows it.
	 * @param policies the policies, at least one
	 * @return the composite
	 */
	static RetryPolicy anyOf(RetryPolicy... policies) {
		return new CompositeRetryPolicy(List.of(policies), true);
	}

	/**
	 * A pessimistic composite: another attempt is allowed only if every policy allows it.
	 * @param policies the policies, at least one
	 * @return the composite
	 */
	static RetryPolicy allOf(RetryPolicy... policies) {
		return new CompositeRetryPolicy(List.of(policies), false);
	}

	/**
	 * A policy chosen by the type of the last failure, where every type's policy counts all the call's
	 * failures: with {@code maxAttempts(3)} for each of two types, two failures of one type then one of
	 * the other end the call. See {@link ExceptionTypeRetryPolicy}; to count each type on its own, use
	 * {@link #byExceptionTypeCountingPerType()}.
	 * @return a builder whose fallback is {@link #never()}
	 */
	static ExceptionTypeRetryPolicy.Builder byExceptionTypeCountingAllFailures() {
		return ExceptionTypeRetryPolicy.builder();
	}

	/**
	 * A policy chosen by the type of the last failure, where each type's policy counts only the failures
	 * of that type (Spring Retry's {@code ExceptionClassifierRetryPolicy}): with {@code maxAttempts(3)} for
	 * each of two types, the call may fail twice with each. See {@link PerExceptionTypeRetryPolicy}; to
	 * count all failures, use {@link #byExceptionTypeCountingAllFailures()}.
	 * @return a builder whose fallback is {@link #never()}
	 */
	static PerExceptionTypeRetryPolicy.Builder byExceptionTypeCountingPerType() {
		return PerExceptionTypeRetryPolicy.builder();
	}

	/**
	 * The former name of {@link #byExceptionTypeCountingAllFailures()}, which it calls: the name did not
	 * say that every type's policy counts all the call's failures.
	 * @return a builder whose fallback is {@link #never()}
	 * @deprecated use {@link #byExceptionTypeCountingAllFailures()}, the same policy
	 */
	@Deprecated(since = "0.1.0")
	static ExceptionTypeRetryPolicy.Builder byExceptionType() {
		return byExceptionTypeCountingAllFailures();
	}

	/**
	 * The former name of {@link #byExceptionTypeCountingPerType()}, which it calls: the name did not say
	 * how it differs from {@code byExceptionType()}.
	 * @return a builder whose fallback is {@link #never()}
	 * @deprecated use {@link #byExceptionTypeCountingPerType()}, the same policy
	 */
	@Deprecated(since = "0.1.0")
	static PerExceptionTypeRetryPolicy.Builder perExceptionType() {
		return byExceptionTypeCountingPerType();
	}

}
