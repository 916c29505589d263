package dev.retrykit.spring.boot.actuate.endpoint;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import org.jspecify.annotations.Nullable;

/**
 * One retry instance as the {@code retries} endpoint shows it. Parts an instance does not have
 * ({@code circuit}, {@code budget}, {@code contextCache}, {@code failback}) are {@code null} and left out
 * of the JSON, and so are the details that only {@code GET /actuator/retries/{name}} shows
 * ({@code recentEvents}, the {@code entries} of the context cache and the {@code tasks} of the failback
 * executor). Immutable.
 *
 * @param config the effective configuration
 * @param calls calls by outcome
 * @param attempts attempts started, first attempts included
 * @param recoveries calls whose result came from a recovery callback
 * @param rejections attempts refused by an open circuit and retries refused by the budget
 * @param circuit the circuit breaker, or {@code null} when the instance has none
 * @param budget the retry budget, or {@code null} when the instance has none
 * @param contextCache the stateful-retry context cache, or {@code null} when it holds nothing and has
 * evicted nothing (the instance has not been used for stateful retry)
 * @param failback the failback executor, or {@code null} when none was created for the instance
 * @param recentEvents the most recent events, oldest first, in the detailed view only
 * @param recentEventsOmitted events recorded since start that the detailed view does not list
 * @param reconfiguredAt when a live change last replaced the instance's configuration (ISO-8601), or
 * {@code null} until the first change
 * @param hedging the instance's hedging, or {@code null} when it does not hedge
 */
@JsonInclude(Include.NON_NULL)
public record RetryInstanceDescriptor(RetryConfigDescriptor config, Calls calls, long attempts, long recoveries,
		Rejections rejections, @Nullable Circuit circuit, @Nullable Budget budget,
		@Nullable ContextCache contextCache, @Nullable Failback failback, @Nullable List<Event> recentEvents,
		@Nullable Long recentEventsOmitted, @Nullable String reconfiguredAt, @Nullable Hedging hedging) {

	/**
	 * An instance's hedging: its current delay and what its copies after the first did.
	 *
	 * @param delay the delay after which the next copy starts now (e.g. {@code 12ms})
	 * @param adaptive whether the delay follows the instance's latency
	 * @param quantile the latency quantile an adaptive delay hedges at, or {@code null} (left out) for a fixed delay
	 * @param started copies after the first that were sent
	 * @param won copies after the first whose result won their call
	 */
	public record Hedging(String delay, boolean adaptive, @Nullable Double quantile, long started, long won) {
	}

	/**
	 * Calls by outcome; every call ends in exactly one.
	 *
	 * @param successfulWithoutRetry calls that succeeded on their first attempt
	 * @param successfulWithRetry calls that succeeded after at least one failed attempt
	 * @param failedWithoutRetry calls that failed without a retry
	 * @param failedWithRetry calls that failed after at least one retry
	 */
	public record Calls(long successfulWithoutRetry, long successfulWithRetry, long failedWithoutRetry,
			long failedWithRetry) {
	}

	/**
	 * Refusals by reason.
	 *
	 * @param circuitOpen attempts refused by an open circuit breaker
	 * @param budgetExhausted retries refused by the retry budget
	 * @param deadline retries, hedged copies and backoffs not started because they would have ended after the
	 * call's deadline ({@code max-duration} or a {@link dev.retrykit.Deadline})
	 * @param downstreamExhausted failed attempts not retried because the downstream said it had already retried
	 * and given up ({@code X-Retry-Exhausted})
	 */
	public record Rejections(long circuitOpen, long budgetExhausted, long deadline, long downstreamExhausted) {
	}

	/**
	 * The state of a circuit breaker and the counts of its current window.
	 *
	 * @param state {@code CLOSED}, {@code OPEN} or {@code HALF_OPEN}
	 * @param forcedOpen whether it was opened by hand (it then stays open until closed by hand)
	 * @param remainingOpen how long until an open circuit lets trial calls through; only while open
	 * and not forced open
	 * @param consecutiveFailures failures since the last success
	 * @param totalFailures failures in the current window
	 * @param totalSuccesses successes in the current window
	 * @param failureRate failures in percent of the calls in the current window
	 * @param scope {@code cluster} when the breaker is shared by the service's replicas, else {@code null} (left out)
	 * @param source for a shared breaker, {@code cluster} while the engine answers (its state follows the other
	 * replicas'), {@code local} while it does not (this replica's own state only); {@code null} (left out) otherwise
	 */
	@JsonInclude(Include.NON_NULL)
	public record Circuit(String state, boolean forcedOpen, @Nullable String remainingOpen, long consecutiveFailures,
			long totalFailures, long totalSuccesses, double failureRate, @Nullable String scope, @Nullable String source) {

		/** A circuit of this replica only. */
		public Circuit(String state, boolean forcedOpen, @Nullable String remainingOpen, long consecutiveFailures,
				long totalFailures, long totalSuccesses, double failureRate) {
			this(state, forcedOpen, remainingOpen, consecutiveFailures, totalFailures, totalSuccesses, failureRate, null,
					null);
		}

		/** A circuit with a scope and no source. */
		public Circuit(String state, boolean forcedOpen, @Nullable String remainingOpen, long consecutiveFailures,
				long totalFailures, long totalSuccesses, double failureRate, @Nullable String scope) {
			this(state, forcedOpen, remainingOpen, consecutiveFailures, totalFailures, totalSuccesses, failureRate, scope,
					null);
		}

		Circuit withScope(@Nullable String scope) {
			return withScope(scope, this.source);
		}

		Circuit withScope(@Nullable String scope, @Nullable String source) {
			return new Circuit(this.state, this.forcedOpen, this.remainingOpen, this.consecutiveFailures,
					this.totalFailures, this.totalSuccesses, this.failureRate, scope, source);
		}

	}

	/**
	 * A retry budget; shared budgets show the same state under every instance that uses them. A token bucket
	 * shows {@code tokens} and {@code maxTokens}; a ratio budget {@code ratio}, {@code minPerSecond},
	 * {@code window} and {@code available}; the other kind's fields are {@code null} and left out.
	 *
	 * @param kind {@code token-bucket} or {@code ratio}
	 * @param tokens a token bucket's tokens left; retries stop at {@code maxTokens / 2}
	 * @param maxTokens a token bucket's capacity
	 * @param ratio a ratio budget's share of the recent calls that may be retried
	 * @param minPerSecond a ratio budget's reserve, in retries per second
	 * @param window a ratio budget's window, e.g. {@code 10s}
	 * @param available the retries a ratio budget would allow now (its balance, rounded down)
	 * @param scope {@code cluster} when the budget is shared by the service's replicas, else {@code null} (left out)
	 * @param source for a shared budget, {@code cluster} while the engine answers (the cluster's tokens as last
	 * synchronised, plus this replica's changes since), {@code local} while it does not (the last synchronised
	 * tokens and this replica's changes only); {@code null} (left out) otherwise
	 */
	@JsonInclude(Include.NON_NULL)
	public record Budget(String kind, @Nullable Double tokens, @Nullable Integer maxTokens, @Nullable Double ratio,
			@Nullable Integer minPerSecond, @Nullable String window, @Nullable Double available, @Nullable String scope,
			@Nullable String source) {

		/** The {@code kind} of a token bucket. */
		public static final String TOKEN_BUCKET = "token-bucket";

		/** The {@code kind} of a ratio budget. */
		public static final String RATIO = "ratio";

		/** A token bucket of this replica only. */
		public Budget(double tokens, int maxTokens) {
			this(tokens, maxTokens, null, null);
		}

		/** A token bucket, shared by the replicas when {@code scope} is {@code cluster}, with no source. */
		public Budget(double tokens, int maxTokens, @Nullable String scope) {
			this(tokens, maxTokens, scope, null);
		}

		/** A token bucket, shared by the replicas when {@code scope} is {@code cluster}. */
		public Budget(double tokens, int maxTokens, @Nullable String scope, @Nullable String source) {
			this(TOKEN_BUCKET, tokens, maxTokens, null, null, null, null, scope, source);
		}

		/** The same budget, read from the given source. */
		Budget withSource(@Nullable String source) {
			return new Budget(this.kind, this.tokens, this.maxTokens, this.ratio, this.minPerSecond, this.window,
					this.available, this.scope, source);
		}

	}

	/**
	 * The stateful-retry context cache.
	 *
	 * @param size the contexts held
	 * @param capacity the most contexts held at once, -1 when unbounded
	 * @param evictions contexts evicted because the cache was full
	 * @param entries the oldest entries, at most {@value RetriesDescriber#MAX_ENTRIES}, in the detailed view only
	 * @param entriesOmitted the entries held but not listed, in the detailed view only
	 * @param source for a cache shared through the cluster engine, {@code cluster} when the engine answered every
	 * read of this view, {@code local} when it did not (the size and entries are then this replica's local contexts
	 * only); {@code null} (left out) for a cache of this replica only
	 */
	@JsonInclude(Include.NON_NULL)
	public record ContextCache(int size, int capacity, long evictions, @Nullable List<ContextCacheEntry> entries,
			@Nullable Integer entriesOmitted, @Nullable String source) {

		/** A cache of this replica only. */
		public ContextCache(int size, int capacity, long evictions, @Nullable List<ContextCacheEntry> entries,
				@Nullable Integer entriesOmitted) {
			this(size, capacity, evictions, entries, entriesOmitted, null);
		}

	}

	/**
	 * One cached stateful context.
	 *
	 * @param key the state key, masked unless values are shown (it may hold a method argument)
	 * @param retryCount failed attempts so far
	 * @param lastErrorType the class name of the last failure, or {@code null}
	 * @param createdAt when the entry was stored (ISO-8601)
	 * @param age how long ago the entry was stored
	 */
	@JsonInclude(Include.NON_NULL)
	public record ContextCacheEntry(String key, int retryCount, @Nullable String lastErrorType, String createdAt,
			String age) {
	}

	/**
	 * The failback executor of the instance (background retries of fire-and-forget tasks).
	 *
	 * @param pending the tasks waiting for a background retry
	 * @param exhausted the tasks exhausted since start, including those no longer kept for inspection
	 * @param rejected the submits refused since start because {@code capacity} tasks were pending (their
	 * tasks did not run)
	 * @param capacity the most tasks kept pending at once
	 * @param tasks the pending tasks, oldest first, then the most recent exhausted tasks kept, oldest
	 * first; at most {@value RetriesDescriber#MAX_ENTRIES} in all, in the detailed view only
	 * @param tasksOmitted the pending and exhausted tasks (counted as in {@code pending} and
	 * {@code exhausted}) that {@code tasks} does not list, in the detailed view only
	 */
	@JsonInclude(Include.NON_NULL)
	public record Failback(int pending, long exhausted, long rejected, int capacity,
			@Nullable List<FailbackTaskEntry> tasks, @Nullable Long tasksOmitted) {
	}

	/**
	 * One pending or exhausted failback task.
	 *
	 * @param state {@code PENDING} (a retry is scheduled) or {@code EXHAUSTED} (it will not run again)
	 * @param key the task's key, masked unless values are shown (it may hold an identifier or a payload)
	 * @param attempts attempts made so far
	 * @param lastErrorType the class name of the last failure, or {@code null}; always shown
	 * @param lastErrorMessage the last failure's message, masked unless values are shown, or {@code null}
	 * @param submittedAt when it was first submitted (ISO-8601)
	 * @param nextAttemptAt when the next attempt is due (ISO-8601), or {@code null} once exhausted
	 */
	@JsonInclude(Include.NON_NULL)
	public record FailbackTaskEntry(String state, String key, int attempts, @Nullable String lastErrorType,
			@Nullable String lastErrorMessage, String submittedAt, @Nullable String nextAttemptAt) {
	}

	/**
	 * One recent event.
	 *
	 * @param type what happened, such as {@code RETRY} or {@code EXHAUSTED}
	 * @param attempt the attempt it is about, 1 for the first
	 * @param exceptionType the class name of the failure, or {@code null}; always shown
	 * @param exceptionMessage the failure's message, masked unless values are shown, or {@code null}
	 * @param delay the wait before the next attempt ({@code 0s} when none)
	 * @param time when it happened (ISO-8601)
	 */
	@JsonInclude(Include.NON_NULL)
	public record Event(String type, int attempt, @Nullable String exceptionType, @Nullable String exceptionMessage,
			String delay, String time) {
	}

}
