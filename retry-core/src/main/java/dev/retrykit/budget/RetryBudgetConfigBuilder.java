package dev.retrykit.budget;

/**
 * Builds a {@link RetryBudgetConfig}; each setter checks its argument at once. Obtain one from
 * {@link RetryBudgetConfig#builder()} or {@link RetryBudgetConfig#builder(RetryBudgetConfig)}.
 *
 * <p>Not thread-safe; a built configuration never changes, whatever happens to its builder later.
 */
public final class RetryBudgetConfigBuilder {

	/** gRFC A6 bounds {@code maxTokens} to (0, 1000]. */
	static final int MAX_TOKENS_LIMIT = 1000;

	/** A ratio above the largest bucket would refill any bucket in one success; also keeps the fixed-point math in range. */
	static final double TOKEN_RATIO_LIMIT = 1000;

	private int maxTokens = RetryBudgetConfig.DEFAULT_MAX_TOKENS;

	private int tokenRatioMillis = (int) Math.round(RetryBudgetConfig.DEFAULT_TOKEN_RATIO * 1000);

	RetryBudgetConfigBuilder() {
	}

	/**
	 * Sets the capacity of the bucket, which is also its initial content. Retries are allowed while
	 * more than half of it is left. Default 10.
	 * @param maxTokens the capacity, 1 to 1000 (gRFC A6's range)
	 * @return this builder
	 * @throws IllegalArgumentException if {@code maxTokens} is outside 1 to 1000
	 */
	public RetryBudgetConfigBuilder maxTokens(int maxTokens) {
		if (maxTokens < 1 || maxTokens > MAX_TOKENS_LIMIT) {
			throw new IllegalArgumentException("Invalid maxTokens (" + maxTokens + "): must be between 1 and " + MAX_TOKENS_LIMIT);
		}
		this.maxTokens = maxTokens;
		return this;
	}

	/**
	 * Sets how many tokens a success gives back. Like gRPC (gRFC A6), the budget keeps 3 decimal
	 * places: a ratio with more is rounded to the nearest thousandth (half up), so 0.0125 becomes
	 * 0.013. Default 0.1.
	 * @param tokenRatio the ratio, from 0.001 (after rounding) to 1000
	 * @return this builder
	 * @throws IllegalArgumentException if {@code tokenRatio} is not a number, rounds to 0, or is
	 * greater than 1000
	 */
	public RetryBudgetConfigBuilder tokenRatio(double tokenRatio) {
		if (Double.isNaN(tokenRatio) || tokenRatio > TOKEN_RATIO_LIMIT) {
			throw new IllegalArgumentException("Invalid tokenRatio (" + tokenRatio + "): must be greater than 0 and at most 1000");
		}
		long millis = Math.round(tokenRatio * 1000);
		if (millis < 1) {
			throw new IllegalArgumentException("Invalid tokenRatio (" + tokenRatio
					+ "): must be 0.001 or greater (the budget keeps 3 decimal places)");
		}
		this.tokenRatioMillis = (int) millis;
		return this;
	}

	/**
	 * Builds a configuration from the values set so far.
	 * @return a new immutable configuration
	 */
	public RetryBudgetConfig build() {
		return new RetryBudgetConfig(this.maxTokens, this.tokenRatioMillis);
	}

}
