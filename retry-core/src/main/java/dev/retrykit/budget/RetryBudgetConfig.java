package dev.retrykit.budget;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The configuration of a {@link RetryBudget}, with gRPC's retry-throttling semantics (gRFC A6).
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

	private static final RetryBudgetConfig DEFAULTS = builder().build();

	private final int maxTokens;

	private final int tokenRatioMillis;

	RetryBudgetConfig(int maxTokens, int tokenRatioMillis) {
		this.maxTokens = maxTokens;
		this.tokenRatioMillis = tokenRatioMillis;
	}

	/** {@return a builder holding the defaults} */
	public static RetryBudgetConfigBuilder builder() {
		return new RetryBudgetConfigBuilder();
	}

	/**
	 * {@return a builder holding the values of {@code base}}
	 * @param base the configuration to start from
	 * @throws NullPointerException if {@code base} is {@code null}
	 */
	public static RetryBudgetConfigBuilder builder(RetryBudgetConfig base) {
		Objects.requireNonNull(base, "base must not be null");
		return new RetryBudgetConfigBuilder().maxTokens(base.maxTokens).tokenRatio(base.getTokenRatio());
	}

	/** {@return the configuration with every default} */
	public static RetryBudgetConfig ofDefaults() {
		return DEFAULTS;
	}

	/** {@return the capacity of the bucket and its initial content, 1 to 1000; default 10} */
	public int getMaxTokens() {
		return this.maxTokens;
	}

	/** {@return the tokens a success gives back, with at most 3 decimal places; default 0.1} */
	public double getTokenRatio() {
		return this.tokenRatioMillis / 1000.0;
	}

	/** @return the {@link #getTokenRatio() token ratio} in thousandths of a token */
	int tokenRatioMillis() {
		return this.tokenRatioMillis;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof RetryBudgetConfig
				&& this.maxTokens == ((RetryBudgetConfig) other).maxTokens
				&& this.tokenRatioMillis == ((RetryBudgetConfig) other).tokenRatioMillis);
	}

	@Override
	public int hashCode() {
		return 31 * this.maxTokens + this.tokenRatioMillis;
	}

	/** @return the effective configuration, e.g. {@code RetryBudgetConfig{maxTokens=10, tokenRatio=0.1}} */
	@Override
	public String toString() {
		return "RetryBudgetConfig{maxTokens=" + this.maxTokens + ", tokenRatio=" + getTokenRatio() + "}";
	}

}
