package dev.retrykit.budget;

import java.time.Duration;
import java.util.Objects;

import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * The configuration of a {@link RetryBudget}, of one of two kinds ({@link Kind}): a token bucket with
 * gRPC's retry-throttling semantics (gRFC A6; the default), or a ratio of the recent calls with
 * Finagle's {@code RetryBudget} semantics, chosen by setting {@link RetryBudgetConfigBuilder#ratio(double)}.
 *
 * <p>Immutable and thread-safe; built and validated by {@link RetryBudgetConfigBuilder}. Start from
 * the defaults with {@link #builder()} or from an existing configuration with
 * {@link #builder(RetryBudgetConfig)}.
 */
public final class RetryBudgetConfig {

	/** The default {@link #getMaxTokens() maxTokens}: {@value}. */
	public static final int DEFAULT_MAX_TOKENS = 10;

	/** The default {@link #getTokenRatio() tokenRatio}: {@value}. */
	public static final double DEFAULT_TOKEN_RATIO = 0.1;

	/** The default {@link #getMinPerSecond() minPerSecond} of a ratio budget: {@value}. */
	public static final int DEFAULT_MIN_PER_SECOND = 10;

	/** The default {@link #getWindow() window} of a ratio budget: 10 seconds. */
	public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);

	private static final RetryBudgetConfig DEFAULTS = builder().build();

	private final Kind kind;

	private final int maxTokens;

	private final int tokenRatioMillis;

	private final double ratio;

	private final int minPerSecond;

	private final Duration window;

	RetryBudgetConfig(Kind kind, int maxTokens, int tokenRatioMillis, double ratio, int minPerSecond, Duration window) {
		this.kind = kind;
		this.maxTokens = maxTokens;
		this.tokenRatioMillis = tokenRatioMillis;
		this.ratio = ratio;
		this.minPerSecond = minPerSecond;
		this.window = window;
	}

	/** {@return a builder holding the defaults: a token bucket of 10 tokens, 0.1 per success} */
	public static RetryBudgetConfigBuilder builder() {
		return new RetryBudgetConfigBuilder();
	}

	/**
	 * {@return a builder holding the values of {@code base}, of its kind; setting the other kind's main
	 * setting ({@code ratio} on a token bucket's, {@code maxTokens} or {@code tokenRatio} on a ratio's)
	 * switches the kind}
	 * @param base the configuration to start from
	 * @throws NullPointerException if {@code base} is {@code null}
	 */
	public static RetryBudgetConfigBuilder builder(RetryBudgetConfig base) {
		Objects.requireNonNull(base, "base must not be null");
		return new RetryBudgetConfigBuilder(base);
	}

	/** {@return the configuration with every default: a token bucket} */
	public static RetryBudgetConfig ofDefaults() {
		return DEFAULTS;
	}

	/** {@return the kind of budget: {@link Kind#RATIO} when a ratio was set, else {@link Kind#TOKEN_BUCKET}} */
	public Kind getKind() {
		return this.kind;
	}

	/** {@return a token bucket's capacity and initial content, 1 to 1000; default 10 (a ratio budget's is the default, unused)} */
	public int getMaxTokens() {
		return this.maxTokens;
	}

	/** {@return the tokens a success gives back to a token bucket, with at most 3 decimal places; default 0.1} */
	public double getTokenRatio() {
		return this.tokenRatioMillis / 1000.0;
	}

	/** @return the {@link #getTokenRatio() token ratio} in thousandths of a token */
	int tokenRatioMillis() {
		return this.tokenRatioMillis;
	}

	/** {@return a ratio budget's share of the calls of the last window that may be retried, in (0, 10]; 0 for a token bucket} */
	public double getRatio() {
		return this.ratio;
	}

	/** {@return a ratio budget's reserve for low traffic, in retries per second, 0 or more; default 10} */
	public int getMinPerSecond() {
		return this.minPerSecond;
	}

	/** {@return how long a ratio budget counts a call, 1s to 60s; default 10s} */
	public Duration getWindow() {
		return this.window;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof RetryBudgetConfig that) || this.kind != that.kind) {
			return false;
		}
		return (this.kind == Kind.TOKEN_BUCKET)
				? this.maxTokens == that.maxTokens && this.tokenRatioMillis == that.tokenRatioMillis
				: Double.compare(this.ratio, that.ratio) == 0 && this.minPerSecond == that.minPerSecond
						&& this.window.equals(that.window);
	}

	@Override
	public int hashCode() {
		return (this.kind == Kind.TOKEN_BUCKET) ? 31 * this.maxTokens + this.tokenRatioMillis
				: Objects.hash(this.ratio, this.minPerSecond, this.window);
	}

	/**
	 * @return the effective configuration, e.g. {@code RetryBudgetConfig{maxTokens=10, tokenRatio=0.1}} or
	 * {@code RetryBudgetConfig{ratio=0.2, minPerSecond=10, window=10s}}
	 */
	@Override
	public String toString() {
		return (this.kind == Kind.TOKEN_BUCKET)
				? "RetryBudgetConfig{maxTokens=" + this.maxTokens + ", tokenRatio=" + getTokenRatio() + "}"
				: "RetryBudgetConfig{ratio=" + this.ratio + ", minPerSecond=" + this.minPerSecond + ", window="
						+ Durations.format(this.window) + "}";
	}

	/** The two kinds of retry budget. */
	public enum Kind {

		/** gRPC's retry throttling: failures drain a bucket that successes refill; retries only above half. */
		TOKEN_BUCKET,

		/** Finagle's: retries up to a share of the recent calls, plus a reserve per second for low traffic. */
		RATIO

	}

}
