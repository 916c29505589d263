package dev.retrykit.spring.boot.autoconfigure;

import dev.retrykit.spring.boot.convert.CompoundDuration;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The settings of one instance, shared config or the defaults ({@code retry.instances.<name>},
 * {@code retry.configs.<name>}, {@code retry.defaults}).
 *
 * <p>Every field is {@code null} until set: an unset value is inherited from the base (the
 * {@code base-config}, else the defaults), a set one overrides it. Inheritance is resolved by
 * {@link RetryPropertiesMapper}, which starts each builder from the built base; these beans are never
 * merged. Not thread-safe; read once at startup.
 */
public class RetryInstanceProperties {

	/** Name of the shared config (under retry.configs) this one inherits from; unset = the defaults. */
	private @Nullable String baseConfig;

	/** Attempts counting the first call (3 = 1 call + 2 retries); 1 or more, or -1 for unlimited. Default 3. */
	private @Nullable Integer maxAttempts;

	/** Deadline from the first attempt: no attempt starts and no backoff waits past it. Zero = none. */
	@CompoundDuration
	private @Nullable Duration maxDuration;

	/** Time limit of each attempt of an async call. Zero = none. */
	@CompoundDuration
	private @Nullable Duration attemptTimeout;

	/** Backoff between attempts. */
	private final Backoff backoff = new Backoff();

	/** Exception classes that are retried (subclasses and causes match); empty = every Exception. */
	private @Nullable List<String> retryOn;

	/** Exception classes that are never retried; they win over retry-on. */
	private @Nullable List<String> ignore;

	/** Exception classes that are never recovered: a call ending with one (subclasses match) rethrows it instead of calling its recovery. */
	private @Nullable List<String> notRecoverable;

	/** Name of a Predicate<Object> bean: a result it accepts is retried like a failure. */
	private @Nullable String retryOnResult;

	/** Name of a dev.retrykit.spi.DelayHintExtractor bean that lets failures dictate the next delay. */
	private @Nullable String delayHint;

	/** Whether an HTTP Retry-After header (seconds or HTTP-date) of a failed Spring HTTP client call replaces the computed delay. */
	private @Nullable Boolean honorRetryAfter;

	/** Whether @Retryable methods of this instance are stateful by default (one attempt per call, the count kept between calls). */
	private @Nullable Boolean stateful;

	/** Status codes that decide whether a failure carrying one is retried. */
	private final Match match = new Match();

	/** Circuit breaker guarding every attempt (Dapr semantics). */
	private final CircuitBreaker circuitBreaker = new CircuitBreaker();

	/** Retry budget (gRPC retry throttling, or a ratio of the recent calls when ratio is set), shareable by name. */
	@NestedConfigurationProperty
	private final BudgetProperties budget = new BudgetProperties();

	/** Hedged requests: another copy of a slow async call after a delay, the first answer wins (idempotent operations only). */
	@NestedConfigurationProperty
	private final HedgingProperties hedging = new HedgingProperties();

	/** Background retries of @Failback methods and RetryRegistry.failback(name) tasks. */
	private final Failback failback = new Failback();

	/** Outgoing HTTP calls this instance guards, without code: calls of clients built from Boot's RestClient, RestTemplate and WebClient builders. */
	@NestedConfigurationProperty
	private final HttpClaimProperties http = new HttpClaimProperties();

	public @Nullable String getBaseConfig() {
		return this.baseConfig;
	}

	public void setBaseConfig(@Nullable String baseConfig) {
		this.baseConfig = baseConfig;
	}

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public @Nullable Duration getMaxDuration() {
		return this.maxDuration;
	}

	public void setMaxDuration(@Nullable Duration maxDuration) {
		this.maxDuration = maxDuration;
	}

	public @Nullable Duration getAttemptTimeout() {
		return this.attemptTimeout;
	}

	public void setAttemptTimeout(@Nullable Duration attemptTimeout) {
		this.attemptTimeout = attemptTimeout;
	}

	public Backoff getBackoff() {
		return this.backoff;
	}

	public @Nullable List<String> getRetryOn() {
		return this.retryOn;
	}

	public void setRetryOn(@Nullable List<String> retryOn) {
		this.retryOn = retryOn;
	}

	public @Nullable List<String> getIgnore() {
		return this.ignore;
	}

	public void setIgnore(@Nullable List<String> ignore) {
		this.ignore = ignore;
	}

	public @Nullable List<String> getNotRecoverable() {
		return this.notRecoverable;
	}

	public void setNotRecoverable(@Nullable List<String> notRecoverable) {
		this.notRecoverable = notRecoverable;
	}

	public @Nullable String getRetryOnResult() {
		return this.retryOnResult;
	}

	public void setRetryOnResult(@Nullable String retryOnResult) {
		this.retryOnResult = retryOnResult;
	}

	public @Nullable String getDelayHint() {
		return this.delayHint;
	}

	public void setDelayHint(@Nullable String delayHint) {
		this.delayHint = delayHint;
	}

	public @Nullable Boolean getHonorRetryAfter() {
		return this.honorRetryAfter;
	}

	public void setHonorRetryAfter(@Nullable Boolean honorRetryAfter) {
		this.honorRetryAfter = honorRetryAfter;
	}

	public @Nullable Boolean getStateful() {
		return this.stateful;
	}

	public void setStateful(@Nullable Boolean stateful) {
		this.stateful = stateful;
	}

	public Match getMatch() {
		return this.match;
	}

	public CircuitBreaker getCircuitBreaker() {
		return this.circuitBreaker;
	}

	public BudgetProperties getBudget() {
		return this.budget;
	}

	public HedgingProperties getHedging() {
		return this.hedging;
	}

	public Failback getFailback() {
		return this.failback;
	}

	public HttpClaimProperties getHttp() {
		return this.http;
	}

	/** Backoff overrides; each unset value is inherited. */
	public static class Backoff {

		/** Backoff type: none, fixed, linear, exponential, exponential-random, uniform-random, fibonacci, full-jitter, equal-jitter or decorrelated-jitter. Default exponential. */
		private @Nullable String type;

		/** Base delay d of the backoff formulas. Default 100ms. */
		@CompoundDuration
		private @Nullable Duration delay;

		/** Factor m between successive delays of the exponential types; 1.0 or greater for them. Default 2.0. */
		private @Nullable Double multiplier;

		/** Cap of every delay, jitter included; not shorter than delay. Default 10s. */
		@CompoundDuration
		private @Nullable Duration maxDelay;

		/** Jitter factor j within [0, 1]: a delay x becomes x·(1 + j·(2r − 1)), clamped into [0, max-delay]. Default 0. */
		private @Nullable Double jitter;

		public @Nullable String getType() {
			return this.type;
		}

		public void setType(@Nullable String type) {
			this.type = type;
		}

		public @Nullable Duration getDelay() {
			return this.delay;
		}

		public void setDelay(@Nullable Duration delay) {
			this.delay = delay;
		}

		public @Nullable Double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(@Nullable Double multiplier) {
			this.multiplier = multiplier;
		}

		public @Nullable Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(@Nullable Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public @Nullable Double getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Double jitter) {
			this.jitter = jitter;
		}

	}

	/** Status-code matching in Dapr's format. */
	public static class Match {

		/** HTTP status codes retried, e.g. "429,500-599"; a failure with another HTTP status is not retried. */
		private @Nullable String httpStatus;

		/** gRPC status codes retried, e.g. "1-4,8-11,13,14". */
		private @Nullable String grpcStatus;

		public @Nullable String getHttpStatus() {
			return this.httpStatus;
		}

		public void setHttpStatus(@Nullable String httpStatus) {
			this.httpStatus = httpStatus;
		}

		public @Nullable String getGrpcStatus() {
			return this.grpcStatus;
		}

		public void setGrpcStatus(@Nullable String grpcStatus) {
			this.grpcStatus = grpcStatus;
		}

	}

	/** Circuit breaker settings; setting any of them gives the instance a breaker unless {@code enabled} is false. */
	public static class CircuitBreaker {

		/**
		 * Whether the instance has a circuit breaker; unset = yes if the base has one or any other
		 * setting of this group is given. The settings are validated even when false.
		 */
		private @Nullable Boolean enabled;

		/** Condition that opens the circuit, over consecutiveFailures, totalFailures, totalSuccesses, requests and failureRate. Default "consecutiveFailures > 5". */
		private @Nullable String trip;

		/** How often the counts are cleared while closed; 0 = never. Default 0. */
		@CompoundDuration
		private @Nullable Duration interval;

		/** How long the circuit stays open before letting trial calls through. Default 60s. */
		@CompoundDuration
		private @Nullable Duration timeout;

		/** Trial calls let through while half-open. Default 1. */
		private @Nullable Integer maxRequests;

		/** Whether the breaker is this replica's own (local) or shared by every replica (cluster, needs retry.cluster.enabled). Default local. */
		private @Nullable Scope scope;

		/** With scope cluster: how many replicas must trip within the open timeout before every replica opens. Default 1. */
		private @Nullable Integer quorum;

		public @Nullable Scope getScope() {
			return this.scope;
		}

		public void setScope(@Nullable Scope scope) {
			this.scope = scope;
		}

		public @Nullable Integer getQuorum() {
			return this.quorum;
		}

		public void setQuorum(@Nullable Integer quorum) {
			this.quorum = quorum;
		}

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getTrip() {
			return this.trip;
		}

		public void setTrip(@Nullable String trip) {
			this.trip = trip;
		}

		public @Nullable Duration getInterval() {
			return this.interval;
		}

		public void setInterval(@Nullable Duration interval) {
			this.interval = interval;
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

		public @Nullable Integer getMaxRequests() {
			return this.maxRequests;
		}

		public void setMaxRequests(@Nullable Integer maxRequests) {
			this.maxRequests = maxRequests;
		}

	}

	/** Failback settings; each unset value is inherited. */
	public static class Failback {

		/**
		 * Most tasks kept pending for a background retry, 1 or more; a submit of a new key beyond it is refused
		 * (RejectedExecutionException, counted in retry.failback.rejected) and its task does not run. Default 10000.
		 */
		private @Nullable Integer capacity;

		public @Nullable Integer getCapacity() {
			return this.capacity;
		}

		public void setCapacity(@Nullable Integer capacity) {
			this.capacity = capacity;
		}

	}

	/** Where a circuit breaker's or budget's state lives. */
	public enum Scope {

		/** In this replica only. */
		LOCAL,

		/** Shared by every replica through the retry cluster ({@code retry.cluster.enabled}). */
		CLUSTER

	}

}
