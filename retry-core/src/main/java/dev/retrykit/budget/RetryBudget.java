package dev.retrykit.budget;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.LongUnaryOperator;
import java.util.random.RandomGenerator;

/**
 * A retry budget with gRPC's retry-throttling semantics (gRFC A6). The bucket starts full at
 * {@code maxTokens}; each failed attempt takes one token (never below 0), each success gives back
 * {@code tokenRatio} (never above {@code maxTokens}), and a retry may start only while more than
 * {@code maxTokens / 2} tokens are left. While a downstream fails, the bucket drains and retries
 * stop; first attempts are never refused.
 *
 * <p>Protocol: report every attempt's outcome with {@link #onSuccess()} or {@link #onFailure()};
 * before a retry, ask {@link #tryAcquireRetry()}. Asking consumes nothing — the failed attempt
 * that calls for the retry has already taken its token.
 *
 * <p>Thread-safety: fully thread-safe and lock-free; one budget may be shared by several retry
 * instances. Tokens are held in fixed point (thousandths of a token) in one {@code int} updated
 * by compare-and-set, so every operation is allocation-free and exact to the thousandth.
 */
public final class RetryBudget {

	private static final int ONE_TOKEN = 1000;

	/** What a retry takes from a failing downstream's budget: the failed attempt that calls for it, and itself. */
	private static final int RETRY_COST = 2 * ONE_TOKEN;

	private static final VarHandle MILLI_TOKENS;

	private static final VarHandle UNSYNCHRONISED;

	private static final VarHandle SPENDABLE;

	static {
		try {
			MILLI_TOKENS = MethodHandles.lookup().findVarHandle(RetryBudget.class, "milliTokens", int.class);
			UNSYNCHRONISED = MethodHandles.lookup().findVarHandle(RetryBudget.class, "unsynchronisedMilliTokens", long.class);
			SPENDABLE = MethodHandles.lookup().findVarHandle(RetryBudget.class, "spendableMilliTokens", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final String name;

	private final RetryBudgetConfig config;

	private final int maxMilliTokens;

	private final int ratioMilliTokens;

	/** Retries are allowed while the tokens are strictly above this. */
	private final int thresholdMilliTokens;

	private volatile int milliTokens;

	/** Whether the budget is shared with a cluster: from the first {@link #synchronise} on, changes are also summed unclamped. */
	private volatile boolean shared;

	/**
	 * The change since the last exchange, unclamped: a failure while this replica's view is empty still
	 * takes a token from the cluster, so clamping each replica's view never turns an outage into a gain.
	 */
	private volatile long unsynchronisedMilliTokens;

	/**
	 * While shared: what this replica may still take before the next exchange, in thousandths of a token:
	 * its grant from the cluster's headroom at the last exchange, plus what its successes gave back since,
	 * less what its failures took. A retry may start only while it is not negative, so that between two
	 * exchanges the replicas together spend about the cluster's headroom, not each replica its own view's.
	 */
	private volatile long spendableMilliTokens;

	/** While shared: this replica's accumulated part of the cluster's headroom that is not granted yet. */
	private long headroomCredit = -1;

	private RetryBudget(String name, RetryBudgetConfig config) {
		this.name = name;
		this.config = config;
		this.maxMilliTokens = config.getMaxTokens() * ONE_TOKEN;
		this.ratioMilliTokens = config.tokenRatioMillis();
		this.thresholdMilliTokens = this.maxMilliTokens / 2;
		this.milliTokens = this.maxMilliTokens;
	}

	/**
	 * Creates a full budget.
	 * @param name the name, shown in metrics and messages; not blank
	 * @param config the configuration
	 * @return the budget
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if {@code name} is blank
	 */
	public static RetryBudget create(String name, RetryBudgetConfig config) {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isBlank()) {
			throw new IllegalArgumentException("Invalid name '" + name + "': must not be blank");
		}
		return new RetryBudget(name, Objects.requireNonNull(config, "config must not be null"));
	}

	/**
	 * A budget with another configuration that keeps this one's tokens (capped at the new
	 * {@code maxTokens}): used when a live change alters a budget's settings. This budget is left as is.
	 * @param config the new configuration
	 * @return the new budget, of the same name
	 * @throws NullPointerException if {@code config} is {@code null}
	 */
	public RetryBudget withConfig(RetryBudgetConfig config) {
		RetryBudget next = new RetryBudget(this.name, Objects.requireNonNull(config, "config must not be null"));
		next.milliTokens = Math.min(next.maxMilliTokens, this.milliTokens);
		return next;
	}

	/** Records a failed attempt: takes one token, never going below zero. */
	public void onFailure() {
		if (this.shared) {
			UNSYNCHRONISED.getAndAdd(this, (long) -ONE_TOKEN);
			SPENDABLE.getAndAdd(this, (long) -ONE_TOKEN);
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

	/** Records a successful attempt: gives back {@code tokenRatio} tokens, never going above {@code maxTokens}. */
	public void onSuccess() {
		for (;;) {
			int current = this.milliTokens;
			if (current == this.maxMilliTokens) {
				return;
			}
			if (MILLI_TOKENS.compareAndSet(this, current, Math.min(this.maxMilliTokens, current + this.ratioMilliTokens))) {
				if (this.shared) {
					// Only a token the budget takes back funds a retry: at a full budget, it funds nothing.
					UNSYNCHRONISED.getAndAdd(this, (long) this.ratioMilliTokens);
					SPENDABLE.getAndAdd(this, (long) this.ratioMilliTokens);
				}
				return;
			}
		}
	}

	/**
	 * Asks whether a retry may start: true only while the tokens are strictly greater than
	 * {@code maxTokens / 2} and, for a budget shared with a cluster, while this replica has not spent
	 * more than its part of the cluster's headroom since the last exchange (see
	 * {@link #synchronise(LongUnaryOperator, int, RandomGenerator)}). Consumes nothing and allocates nothing.
	 * @return whether the retry may start
	 */
	public boolean tryAcquireRetry() {
		return this.milliTokens > this.thresholdMilliTokens && (!this.shared || this.spendableMilliTokens >= 0);
	}

	/**
	 * Exchanges this budget's unsynchronised change with a cluster that shares the budget: hands the
	 * change since the last exchange (in thousandths of a token, negative when tokens were taken; summed
	 * without clamping, so failures while this replica's view is empty still count) to {@code exchange},
	 * which adds it to the cluster's tokens and returns them; the budget then decides on those tokens plus
	 * the changes made here meanwhile. Calls in progress are never blocked: they keep deciding on the local
	 * tokens while the exchange runs. If {@code exchange} throws, nothing is lost: the change is handed over
	 * again next time. Calls to this method are serialised. The same as
	 * {@link #synchronise(LongUnaryOperator, int, RandomGenerator)} for a cluster of one replica.
	 * @param exchange adds a change to the cluster's tokens and returns them, in thousandths of a token
	 */
	public void synchronise(LongUnaryOperator exchange) {
		synchronise(exchange, 1, RandomGenerator.getDefault());
	}

	/**
	 * Exchanges this budget's unsynchronised change with a cluster of {@code replicas} that share the
	 * budget (see {@link #synchronise(LongUnaryOperator)}), and grants this replica its part of the
	 * cluster's headroom (the tokens above {@code maxTokens / 2}) until the next exchange: the headroom
	 * divided by the replicas, in whole retries of two tokens each (the failed attempt that calls for a
	 * retry, and the retry). A part smaller than that accumulates from exchange to exchange until it makes
	 * a whole one, from a random starting point, so that in each exchange interval the replicas granted a
	 * retry spend about the headroom together instead of each spending its own view's: when a downstream
	 * fails for every replica at once, the fleet's first retries take about one budget's headroom. A
	 * replica whose part is at least half a retry (a small fleet: up to 5 replicas with the default 10
	 * tokens) is granted one retry per exchange. Tokens that this replica's successes give back between
	 * exchanges are its to spend too.
	 * @param exchange adds a change to the cluster's tokens and returns them, in thousandths of a token
	 * @param replicas how many replicas share the budget, as the engine last counted them (at least 1)
	 * @param random chooses the starting point of this replica's accumulated part, at its first exchange
	 */
	public synchronized void synchronise(LongUnaryOperator exchange, int replicas, RandomGenerator random) {
		long taken;
		if (this.shared) {
			taken = (long) UNSYNCHRONISED.getAndSet(this, 0L);
		}
		else {
			// The first exchange: what happened before it is the view's distance from full (a change racing
			// with this one exchange may be counted twice or not at all; the next exchanges are exact).
			this.shared = true;
			taken = (long) this.milliTokens - this.maxMilliTokens;
		}
		long cluster;
		try {
			cluster = exchange.applyAsLong(taken);
		}
		catch (RuntimeException | Error ex) {
			UNSYNCHRONISED.getAndAdd(this, taken);
			throw ex;
		}
		if (this.headroomCredit < 0) {
			this.headroomCredit = random.nextInt(RETRY_COST);
		}
		long headroom = Math.max(0, Math.min(this.maxMilliTokens, cluster) - this.thresholdMilliTokens);
		long share = headroom / Math.max(1, replicas);
		this.headroomCredit += share;
		long grant = this.headroomCredit - this.headroomCredit % RETRY_COST;
		if (grant == 0 && 2 * share >= RETRY_COST) {
			// A fleet small enough for every replica to have half a retry of headroom: one retry each, so
			// that a few replicas always retry an isolated failure (overshooting the headroom at most twice).
			grant = RETRY_COST;
		}
		this.headroomCredit = Math.max(0, this.headroomCredit - grant);
		// A retry may start while this is not negative, after the failure that calls for it took its token.
		this.spendableMilliTokens = grant - ONE_TOKEN;
		for (;;) {
			int now = this.milliTokens;
			long next = Math.max(0, Math.min(this.maxMilliTokens, cluster + this.unsynchronisedMilliTokens));
			if (MILLI_TOKENS.compareAndSet(this, now, (int) next)) {
				return;
			}
		}
	}

	/** {@return the tokens left, from 0 to {@code maxTokens}, exact to the thousandth} */
	public double getTokens() {
		return this.milliTokens / (double) ONE_TOKEN;
	}

	/** {@return the capacity of the bucket} */
	public int getMaxTokens() {
		return this.config.getMaxTokens();
	}

	/** {@return the name} */
	public String getName() {
		return this.name;
	}

	/** {@return the configuration} */
	public RetryBudgetConfig getConfig() {
		return this.config;
	}

	/** @return the name, tokens and configuration, e.g. {@code RetryBudget{name='db', tokens=7.3, maxTokens=10, tokenRatio=0.1}} */
	@Override
	public String toString() {
		return "RetryBudget{name='" + this.name + "', tokens=" + getTokens() + ", maxTokens=" + getMaxTokens()
				+ ", tokenRatio=" + this.config.getTokenRatio() + "}";
	}

}
