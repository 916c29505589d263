package dev.retrykit.budget;

import java.util.Objects;
import java.util.function.LongUnaryOperator;
import java.util.random.RandomGenerator;

import dev.retrykit.spi.TimeSource;

/**
 * A retry budget: stops retries while a downstream fails, so that retries cannot amplify an outage.
 * Two kinds ({@link RetryBudgetConfig.Kind}), created from their configuration by {@link #create}:
 * <ul>
 * <li>a token bucket (gRPC's retry throttling, gRFC A6): it starts full at {@code maxTokens}; each
 * failed attempt takes one token, each success gives back {@code tokenRatio}, and a retry may start only
 * while more than {@code maxTokens / 2} tokens are left;
 * <li>a ratio (Finagle's {@code RetryBudget}): retries may be up to {@code ratio} × the calls started in
 * the last {@code window}, plus a reserve of {@code minPerSecond} × the window's seconds for low traffic;
 * a retry counts against the window until it leaves it. So that the share banked over a healthy window
 * cannot all be spent in the first second of an outage, no second (the last ten tenths of a second) may
 * spend more than {@code ratio} × its own calls plus the reserve either.
 * </ul>
 *
 * <p>Protocol, as the engine follows it: {@link #onCall()} when a call starts (not when a stateful call
 * continues), {@link #onSuccess()} or {@link #onFailure()} for every attempt's outcome (a failure that
 * is not retryable is not reported), and {@link #tryAcquireRetry()} right before a retry or a hedge
 * starts: a token bucket consumes nothing when asked (the failed attempt took its token), a ratio
 * budget counts the retry when it says yes. First attempts are never refused.
 *
 * <p>In a cluster ({@code budget.scope: cluster}, {@code dev.retrykit.cluster.RetryCluster}),
 * {@link #synchronise(LongUnaryOperator, int, RandomGenerator)} runs every sync interval, off the calls'
 * path; calls keep deciding locally, with no round trip.
 *
 * <p>Thread-safety: fully thread-safe; one budget may be shared by several retry instances. The
 * per-call operations are lock-free and allocation-free.
 */
public abstract sealed class RetryBudget permits TokenBucketBudget, RatioBudget {

	private final String name;

	private final RetryBudgetConfig config;

	final TimeSource timeSource;

	RetryBudget(String name, RetryBudgetConfig config, TimeSource timeSource) {
		this.name = name;
		this.config = config;
		this.timeSource = timeSource;
	}

	/**
	 * Creates a budget on the system clock: a full token bucket, or a ratio budget that has seen no call yet
	 * (its reserve only).
	 * @param name the name, shown in metrics and messages; not blank
	 * @param config the configuration
	 * @return the budget
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if {@code name} is blank
	 */
	public static RetryBudget create(String name, RetryBudgetConfig config) {
		return create(name, config, TimeSource.SYSTEM);
	}

	/**
	 * Creates a budget, as {@link #create(String, RetryBudgetConfig)}, whose ratio window runs on a given
	 * clock (a token bucket does not read the clock).
	 * @param name the name, shown in metrics and messages; not blank
	 * @param config the configuration
	 * @param timeSource the clock a ratio budget counts its window on
	 * @return the budget
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if {@code name} is blank
	 */
	public static RetryBudget create(String name, RetryBudgetConfig config, TimeSource timeSource) {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isBlank()) {
			throw new IllegalArgumentException("Invalid name '" + name + "': must not be blank");
		}
		Objects.requireNonNull(config, "config must not be null");
		Objects.requireNonNull(timeSource, "timeSource must not be null");
		return (config.getKind() == RetryBudgetConfig.Kind.RATIO) ? new RatioBudget(name, config, timeSource)
				: new TokenBucketBudget(name, config, timeSource);
	}

	/**
	 * A budget with another configuration, of the same name and clock: used when a live change alters a
	 * budget's settings. A token bucket that stays one keeps its tokens (capped at the new
	 * {@code maxTokens}); a ratio budget that stays one keeps the calls and retries of its window; a budget
	 * that changes kind starts afresh. This budget is left as is.
	 * @param config the new configuration
	 * @return the new budget
	 * @throws NullPointerException if {@code config} is {@code null}
	 */
	public abstract RetryBudget withConfig(RetryBudgetConfig config);

	/** Records that a call starts (its first attempt is about to run); a token bucket ignores it. */
	public void onCall() {
	}

	/** Records a successful attempt. */
	public abstract void onSuccess();

	/** Records a failed attempt that may be retried. */
	public abstract void onFailure();

	/**
	 * Asks whether a retry (or a hedge) may start now; a ratio budget counts the retry when it answers yes.
	 * Allocates nothing.
	 * @return whether the retry may start
	 */
	public abstract boolean tryAcquireRetry();

	/**
	 * {@return the retries the budget would allow now, if each followed a failed attempt and no call
	 * started meanwhile} A token bucket: the failures it can take while still above half (10 tokens of
	 * 10: 4); a ratio budget: its balance, rounded down. In a cluster, as this replica decides.
	 */
	public abstract double getAvailable();

	/**
	 * {@return a token bucket's tokens, from 0 to {@code maxTokens}, exact to the thousandth (in a cluster,
	 * the fewer of this replica's and the cluster's as last synchronised with this replica's changes since);
	 * a ratio budget's {@link #getAvailable()}}
	 */
	public abstract double getTokens();

	/** {@return a token bucket's capacity; 0 for a ratio budget, which has none} */
	public int getMaxTokens() {
		return 0;
	}

	/**
	 * Exchanges this budget's changes with a cluster of one replica: the same as
	 * {@link #synchronise(LongUnaryOperator, int, RandomGenerator)} with one replica.
	 * @param exchange adds a change to the cluster's tokens and returns them, in thousandths of a token
	 */
	public void synchronise(LongUnaryOperator exchange) {
		synchronise(exchange, 1, RandomGenerator.getDefault());
	}

	/**
	 * Shares this budget with a cluster of {@code replicas} that share it; calls to this method are
	 * serialised, and calls in progress are never blocked by it. A token bucket hands the change since
	 * the last exchange (in thousandths of a token, unclamped, so that failures count while this replica's
	 * bucket is empty) to {@code exchange}, which adds it to the cluster's bucket of {@code maxTokens} and
	 * returns it; from then on a retry needs both this replica's own bucket and the cluster's (as last
	 * exchanged, plus the changes since) above half: while the fleet is healthy each replica retries as a
	 * per-replica bucket would, and once the fleet's tokens run low every replica stops. If {@code exchange}
	 * throws, nothing is lost: the change is handed over again next time. A ratio budget does not call
	 * {@code exchange}: its retries are funded by this replica's own calls, which add up to the fleet's
	 * over the replicas, and its reserve becomes the fleet's, {@code 1/replicas} of it on each.
	 * @param exchange adds a change to the cluster's tokens and returns them, in thousandths of a token
	 * @param replicas how many replicas share the budget, as the engine last counted them (at least 1)
	 * @param random unused; kept for the callers that pass one
	 */
	public abstract void synchronise(LongUnaryOperator exchange, int replicas, RandomGenerator random);

	/** {@return the name} */
	public String getName() {
		return this.name;
	}

	/** {@return the configuration} */
	public RetryBudgetConfig getConfig() {
		return this.config;
	}

	/** {@return the kind, as the configuration says} */
	public RetryBudgetConfig.Kind getKind() {
		return this.config.getKind();
	}

}
