package dev.retrykit.budget;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongUnaryOperator;
import java.util.random.RandomGenerator;

import dev.retrykit.spi.TimeSource;

/**
 * A retry budget with gRPC's retry-throttling semantics (gRFC A6), as {@link RetryBudget} describes. The
 * bucket starts full at {@code maxTokens}; each failed attempt takes one token (never below 0), each
 * success gives back {@code tokenRatio} (never above {@code maxTokens}), and a retry may start only
 * while more than {@code maxTokens / 2} tokens are left. Asking consumes nothing — the failed attempt
 * that calls for the retry has already taken its token.
 *
 * <p>Shared with a cluster, the replica keeps its own bucket exactly as above and also decides on the
 * cluster's: a retry needs both above half. The cluster's bucket (one of {@code maxTokens} for the fleet)
 * takes every replica's failures and successes, so it stays full while the fleet is healthy and adds no
 * restraint then; once the fleet's failures drain it, every replica stops retrying at its next exchange.
 *
 * <p>Thread-safe and lock-free: tokens are held in fixed point (thousandths of a token) in one {@code int}
 * updated by compare-and-set, so every operation is allocation-free and exact to the thousandth.
 */
final class TokenBucketBudget extends RetryBudget {

	private static final int ONE_TOKEN = 1000;

	private static final VarHandle MILLI_TOKENS;

	private static final VarHandle UNSYNCHRONISED;

	static {
		try {
			MILLI_TOKENS = MethodHandles.lookup().findVarHandle(TokenBucketBudget.class, "milliTokens", int.class);
			UNSYNCHRONISED = MethodHandles.lookup().findVarHandle(TokenBucketBudget.class, "unsynchronisedMilliTokens",
					long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final int maxMilliTokens;

	private final int ratioMilliTokens;

	/** Retries are allowed while the tokens are strictly above this. */
	private final int thresholdMilliTokens;

	/** This replica's own bucket, also when shared. */
	private volatile int milliTokens;

	/** Whether the budget is shared with a cluster: from the first {@link #synchronise} on, changes are also summed unclamped. */
	private volatile boolean shared;

	/**
	 * The change since the last exchange, unclamped: a failure while this replica's bucket is empty still
	 * takes a token from the cluster, so clamping each replica's bucket never turns an outage into a gain.
	 */
	private volatile long unsynchronisedMilliTokens;

	/** The change being handed over by an exchange in progress: the cluster's tokens do not hold it yet. */
	private volatile long exchangingMilliTokens;

	/** The cluster's tokens at the last exchange. */
	private volatile long clusterMilliTokens;

	TokenBucketBudget(String name, RetryBudgetConfig config, TimeSource timeSource) {
		super(name, config, timeSource);
		this.maxMilliTokens = config.getMaxTokens() * ONE_TOKEN;
		this.ratioMilliTokens = config.tokenRatioMillis();
		this.thresholdMilliTokens = this.maxMilliTokens / 2;
		this.milliTokens = this.maxMilliTokens;
		this.clusterMilliTokens = this.maxMilliTokens;
	}

	@Override
	public RetryBudget withConfig(RetryBudgetConfig config) {
		RetryBudget next = RetryBudget.create(getName(), config, this.timeSource);
		if (next instanceof TokenBucketBudget bucket) {
			bucket.milliTokens = Math.min(bucket.maxMilliTokens, this.milliTokens);
		}
		return next;
	}

	@Override
	public void onFailure() {
		if (this.shared) {
			UNSYNCHRONISED.getAndAdd(this, (long) -ONE_TOKEN);
		}
		for (;;) {
			int current = this.milliTokens;
			if (current == 0) {
				return;
			}
			if (MILLI_TOKENS.compareAndSet(this, current, Math.max(0, current - ONE_TOKEN))) {
				return;
			}
		}
	}

	@Override
	public void onSuccess() {
		if (this.shared) {
			// Also when this replica's bucket is full: the cluster's is the fleet's, which may be lower.
			UNSYNCHRONISED.getAndAdd(this, (long) this.ratioMilliTokens);
		}
		for (;;) {
			int current = this.milliTokens;
			if (current == this.maxMilliTokens) {
				return;
			}
			if (MILLI_TOKENS.compareAndSet(this, current, Math.min(this.maxMilliTokens, current + this.ratioMilliTokens))) {
				return;
			}
		}
	}

	/**
	 * {@inheritDoc} True only while the tokens are strictly greater than {@code maxTokens / 2} and, for a
	 * budget shared with a cluster, while the cluster's are too (as last exchanged, plus this replica's
	 * changes since).
	 */
	@Override
	public boolean tryAcquireRetry() {
		return this.milliTokens > this.thresholdMilliTokens && (!this.shared || clusterView() > this.thresholdMilliTokens);
	}

	/** The cluster's tokens as this replica sees them: as last exchanged, plus its changes since. */
	private long clusterView() {
		return this.clusterMilliTokens + this.exchangingMilliTokens + this.unsynchronisedMilliTokens;
	}

	@Override
	public synchronized void synchronise(LongUnaryOperator exchange, int replicas, RandomGenerator random) {
		long taken;
		if (this.shared) {
			taken = this.unsynchronisedMilliTokens;
			// Counted as exchanging before it leaves the unsynchronised change: seen twice for a moment, never missed.
			this.exchangingMilliTokens = taken;
			UNSYNCHRONISED.getAndAdd(this, -taken);
		}
		else {
			// The first exchange: what happened before it is the bucket's distance from full (a change racing
			// with this one exchange may be counted twice or not at all; the next exchanges are exact).
			taken = (long) this.milliTokens - this.maxMilliTokens;
			this.clusterMilliTokens = this.milliTokens;
			this.shared = true;
		}
		long cluster;
		try {
			cluster = exchange.applyAsLong(taken);
		}
		catch (RuntimeException | Error ex) {
			UNSYNCHRONISED.getAndAdd(this, taken);
			this.exchangingMilliTokens = 0;
			throw ex;
		}
		this.clusterMilliTokens = cluster;
		this.exchangingMilliTokens = 0;
	}

	@Override
	public double getAvailable() {
		long head = effectiveMilliTokens() - this.thresholdMilliTokens;
		// The k-th failure from now leaves the tokens less k; a retry after it needs them still above half.
		return (head <= 0) ? 0 : (head + ONE_TOKEN - 1) / ONE_TOKEN - 1;
	}

	@Override
	public double getTokens() {
		return effectiveMilliTokens() / (double) ONE_TOKEN;
	}

	private long effectiveMilliTokens() {
		long own = this.milliTokens;
		return this.shared ? Math.min(own, Math.max(0, Math.min(this.maxMilliTokens, clusterView()))) : own;
	}

	@Override
	public int getMaxTokens() {
		return getConfig().getMaxTokens();
	}

	/** @return the name, tokens and configuration, e.g. {@code RetryBudget{name='db', tokens=7.3, maxTokens=10, tokenRatio=0.1}} */
	@Override
	public String toString() {
		return "RetryBudget{name='" + getName() + "', tokens=" + getTokens() + ", maxTokens=" + getMaxTokens()
				+ ", tokenRatio=" + getConfig().getTokenRatio() + "}";
	}

}
