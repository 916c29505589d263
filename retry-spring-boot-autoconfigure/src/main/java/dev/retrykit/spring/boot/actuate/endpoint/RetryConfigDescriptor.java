package dev.retrykit.spring.boot.actuate.endpoint;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import dev.retrykit.RetryConfig;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.backoff.BackoffType;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.spi.BackoffStrategy;
import dev.retrykit.spring.boot.convert.CompoundDurationConverter;
import org.jspecify.annotations.Nullable;

/**
 * The effective configuration of an instance, after inheritance, as the {@code retries} endpoint shows
 * it: durations in the form a property takes ({@code 100ms}, {@code 2s}), exception types by class name,
 * status lists normalized. Settings an instance does not have are left out; custom predicates and
 * policies are shown as {@code true} only, since their code has no readable form. Immutable.
 *
 * @param maxAttempts attempts allowed counting the first; -1 = unlimited
 * @param maxDuration the deadline from the first attempt, or {@code null} for none
 * @param attemptTimeout the time limit of each async attempt, or {@code null} for none
 * @param backoff the backoff
 * @param retryOn failure types that are retried (empty = every exception)
 * @param ignore failure types that are never retried
 * @param notRecoverable failure types that are never recovered, or {@code null} when there are none
 * @param traverseCauses whether types are matched against the cause chain too
 * @param httpStatus the HTTP status codes that are retried, or {@code null}
 * @param grpcStatus the gRPC status codes that are retried, or {@code null}
 * @param retryIf {@code true} when a custom failure predicate is set, else {@code null}
 * @param retryOnResult {@code true} when a result predicate is set, else {@code null}
 * @param policy {@code true} when an additional retry policy is set, else {@code null}
 * @param honorDelayHint {@code true} when a delay hint (such as {@code Retry-After}) is honoured, else {@code null}
 * @param maxDelayHint the ceiling of a delay hint, shown when hints are honoured
 * @param circuitBreaker the circuit breaker, or {@code null} when the instance has none
 * @param budget the retry budget, or {@code null} when the instance has none
 * @param stateful whether the instance's annotated methods are stateful by default
 */
@JsonInclude(Include.NON_NULL)
public record RetryConfigDescriptor(int maxAttempts, @Nullable String maxDuration, @Nullable String attemptTimeout,
		Backoff backoff, List<String> retryOn, List<String> ignore, @Nullable List<String> notRecoverable,
		boolean traverseCauses,
		@Nullable String httpStatus, @Nullable String grpcStatus, @Nullable Boolean retryIf,
		@Nullable Boolean retryOnResult, @Nullable Boolean policy, @Nullable Boolean honorDelayHint,
		@Nullable String maxDelayHint, @Nullable CircuitBreaker circuitBreaker, @Nullable Budget budget,
		boolean stateful) {

	/**
	 * Describes a configuration.
	 * @param config the effective configuration of an instance
	 * @return its description
	 */
	public static RetryConfigDescriptor of(RetryConfig config) {
		boolean delayHint = config.getDelayHint() != null;
		return new RetryConfigDescriptor(config.getMaxAttempts(), format(config.getMaxDuration()),
				format(config.getAttemptTimeout()), Backoff.of(config.getBackoff()), names(config.getRetryOn()),
				names(config.getIgnore()), config.getNotRecoverable().isEmpty() ? null : names(config.getNotRecoverable()),
				config.isTraverseCauses(), text(config.getHttpStatus()),
				text(config.getGrpcStatus()), flag(config.getRetryIf()), flag(config.getRetryOnResult()),
				flag(config.getPolicy()), delayHint ? Boolean.TRUE : null,
				delayHint ? format(config.getMaxDelayHint()) : null, CircuitBreaker.of(config.getCircuitBreaker()),
				Budget.of(config.getBudget(), config.getBudgetName()), config.isStateful());
	}

	private static List<String> names(List<Class<? extends Throwable>> types) {
		return types.stream().map(Class::getName).toList();
	}

	private static @Nullable String format(@Nullable Duration duration) {
		return (duration != null) ? CompoundDurationConverter.format(duration) : null;
	}

	private static @Nullable String text(@Nullable Object value) {
		return (value != null) ? value.toString() : null;
	}

	private static @Nullable Boolean flag(@Nullable Object value) {
		return (value != null) ? Boolean.TRUE : null;
	}

	/**
	 * The backoff. Type {@code none} shows no other setting; a custom strategy (not a built-in
	 * backoff type) shows as type {@code custom} with its {@code toString()} as description.
	 *
	 * @param type the backoff type id, such as {@code exponential}, or {@code custom}
	 * @param delay the base delay
	 * @param multiplier the multiplier
	 * @param maxDelay the maximum delay
	 * @param jitter the jitter factor
	 * @param description the description of a custom strategy
	 */
	@JsonInclude(Include.NON_NULL)
	public record Backoff(String type, @Nullable String delay, @Nullable Double multiplier, @Nullable String maxDelay,
			@Nullable Double jitter, @Nullable String description) {

		static Backoff of(BackoffStrategy strategy) {
			if (strategy instanceof BackoffPolicy policy && policy.getType() == BackoffType.NONE) {
				// No delay at all: the other settings are inert and would only mislead.
				return new Backoff(policy.getType().getId(), null, null, null, null, null);
			}
			if (strategy instanceof BackoffPolicy policy) {
				return new Backoff(policy.getType().getId(), CompoundDurationConverter.format(policy.getDelay()),
						policy.getMultiplier(), CompoundDurationConverter.format(policy.getMaxDelay()), policy.getJitter(), null);
			}
			return new Backoff("custom", null, null, null, null, strategy.toString());
		}

	}

	/**
	 * The circuit breaker settings.
	 *
	 * @param trip the trip expression
	 * @param interval how often counts are cleared while closed ({@code 0s} = never)
	 * @param timeout how long the circuit stays open before half-open
	 * @param maxRequests trial calls while half-open
	 */
	public record CircuitBreaker(String trip, String interval, String timeout, int maxRequests) {

		static @Nullable CircuitBreaker of(@Nullable CircuitBreakerConfig config) {
			return (config != null) ? new CircuitBreaker(config.getTrip(), CompoundDurationConverter.format(config.getInterval()),
					CompoundDurationConverter.format(config.getTimeout()), config.getMaxRequests()) : null;
		}

	}

	/**
	 * The retry budget settings: a token bucket's {@code maxTokens} and {@code tokenRatio}, or a ratio budget's
	 * {@code ratio}, {@code minPerSecond} and {@code window}; the other kind's are {@code null} and left out.
	 *
	 * @param kind {@code token-bucket} or {@code ratio}
	 * @param maxTokens a token bucket's capacity
	 * @param tokenRatio tokens given back by each success to a token bucket
	 * @param ratio a ratio budget's share of the recent calls that may be retried
	 * @param minPerSecond a ratio budget's reserve, in retries per second
	 * @param window a ratio budget's window, e.g. {@code 10s}
	 * @param name the name under which the budget is shared, or {@code null} for the instance's own
	 */
	@JsonInclude(Include.NON_NULL)
	public record Budget(String kind, @Nullable Integer maxTokens, @Nullable Double tokenRatio, @Nullable Double ratio,
			@Nullable Integer minPerSecond, @Nullable String window, @Nullable String name) {

		/** A token bucket's settings. */
		public Budget(int maxTokens, double tokenRatio, @Nullable String name) {
			this(RetryInstanceDescriptor.Budget.TOKEN_BUCKET, maxTokens, tokenRatio, null, null, null, name);
		}

		static @Nullable Budget of(@Nullable RetryBudgetConfig config, @Nullable String name) {
			if (config == null) {
				return null;
			}
			return (config.getKind() == RetryBudgetConfig.Kind.TOKEN_BUCKET)
					? new Budget(config.getMaxTokens(), config.getTokenRatio(), name)
					: new Budget(RetryInstanceDescriptor.Budget.RATIO, null, null, config.getRatio(), config.getMinPerSecond(),
							CompoundDurationConverter.format(config.getWindow()), name);
		}

	}

}
