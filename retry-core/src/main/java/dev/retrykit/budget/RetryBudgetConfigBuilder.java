package dev.retrykit.budget;

import java.time.Duration;
import java.util.Objects;

import dev.retrykit.budget.RetryBudgetConfig.Kind;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link RetryBudgetConfig}; each setter checks its argument at once, and {@link #build()}
 * checks that the settings given belong to one kind of budget. Setting {@link #ratio(double)} chooses a
 * ratio budget; without it the budget is a token bucket. Obtain one from {@link RetryBudgetConfig#builder()}
 * or {@link RetryBudgetConfig#builder(RetryBudgetConfig)}.
 *
 * <p>Not thread-safe; a built configuration never changes, whatever happens to its builder later.
 */
public final class RetryBudgetConfigBuilder {

	/** gRFC A6 bounds {@code maxTokens} to (0, 1000]. */
	static final int MAX_TOKENS_LIMIT = 1000;

	/** A ratio above the largest bucket would refill any bucket in one success; also keeps the fixed-point math in range. */
	static final double TOKEN_RATIO_LIMIT = 1000;

	/** A ratio budget may allow at most ten retries per call: more is no budget at all. */
	static final double RATIO_LIMIT = 10;

	static final Duration MIN_WINDOW = Duration.ofSeconds(1);

	static final Duration MAX_WINDOW = Duration.ofSeconds(60);

	private Kind kind;

	private int maxTokens = RetryBudgetConfig.DEFAULT_MAX_TOKENS;

	private int tokenRatioMillis = (int) Math.round(RetryBudgetConfig.DEFAULT_TOKEN_RATIO * 1000);

	private double ratio;

	private int minPerSecond = RetryBudgetConfig.DEFAULT_MIN_PER_SECOND;

	private Duration window = RetryBudgetConfig.DEFAULT_WINDOW;

	/** The token bucket's setting given to this builder, to name in a conflict; {@code null} if none. */
	private @Nullable String tokenSetting;

	/** The ratio budget's setting given to this builder without {@code ratio}, to name in a conflict; {@code null} if none. */
	private @Nullable String ratioSetting;

	private boolean ratioSet;

	RetryBudgetConfigBuilder() {
		this.kind = Kind.TOKEN_BUCKET;
	}

	RetryBudgetConfigBuilder(RetryBudgetConfig base) {
		this.kind = base.getKind();
		this.maxTokens = base.getMaxTokens();
		this.tokenRatioMillis = base.tokenRatioMillis();
		this.ratio = base.getRatio();
		this.minPerSecond = base.getMinPerSecond();
		this.window = base.getWindow();
	}

	/**
	 * Sets a token bucket's capacity, which is also its initial content. Retries are allowed while
	 * more than half of it is left. Default 10. Chooses a token bucket (see {@link #build()}).
	 * @param maxTokens the capacity, 1 to 1000 (gRFC A6's range)
	 * @return this builder
	 * @throws IllegalArgumentException if {@code maxTokens} is outside 1 to 1000
	 */
	public RetryBudgetConfigBuilder maxTokens(int maxTokens) {
		if (maxTokens < 1 || maxTokens > MAX_TOKENS_LIMIT) {
			throw new IllegalArgumentException("Invalid maxTokens (" + maxTokens + "): must be between 1 and " + MAX_TOKENS_LIMIT);
		}
		this.maxTokens = maxTokens;
		tokenBucket("maxTokens (" + maxTokens + ")");
		return this;
	}

	/**
	 * Sets how many tokens a success gives back to a token bucket. Like gRPC (gRFC A6), the budget keeps 3
	 * decimal places: a ratio with more is rounded to the nearest thousandth (half up), so 0.0125 becomes
	 * 0.013. Default 0.1. Chooses a token bucket (see {@link #build()}).
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
		tokenBucket("tokenRatio (" + tokenRatio + ")");
		return this;
	}

	/**
	 * Chooses a ratio budget (Finagle's {@code RetryBudget}): retries may be up to this share of the calls
	 * started in the last {@link #window(Duration) window}, plus the reserve of
	 * {@link #minPerSecond(int) minPerSecond}. No default: setting it is what chooses the kind.
	 * @param ratio the share, greater than 0 and at most 10 (e.g. 0.2: one retry for five calls)
	 * @return this builder
	 * @throws IllegalArgumentException if {@code ratio} is not a number, 0 or less, or greater than 10
	 */
	public RetryBudgetConfigBuilder ratio(double ratio) {
		if (!(ratio > 0 && ratio <= RATIO_LIMIT)) {
			throw new IllegalArgumentException("Invalid ratio (" + ratio + "): must be greater than 0 and at most 10");
		}
		this.ratio = ratio;
		this.ratioSet = true;
		this.kind = Kind.RATIO;
		return this;
	}

	/**
	 * Sets a ratio budget's reserve for low traffic: {@code minPerSecond} × the window's seconds retries
	 * beyond the ratio, each coming back when the retry that used it leaves the window. Default 10.
	 * @param minPerSecond retries per second, 0 or more (0: no reserve, only the ratio)
	 * @return this builder
	 * @throws IllegalArgumentException if {@code minPerSecond} is negative
	 */
	public RetryBudgetConfigBuilder minPerSecond(int minPerSecond) {
		if (minPerSecond < 0) {
			throw new IllegalArgumentException("Invalid minPerSecond (" + minPerSecond + "): must be 0 or greater");
		}
		this.minPerSecond = minPerSecond;
		ratioSetting("minPerSecond (" + minPerSecond + ")");
		return this;
	}

	/**
	 * Sets how long a ratio budget counts a call (and a retry): the calls of the last window fund its
	 * retries. Counted in tenths of a second. Default 10s.
	 * @param window the window, from 1s to 60s
	 * @return this builder
	 * @throws NullPointerException if {@code window} is {@code null}
	 * @throws IllegalArgumentException if {@code window} is shorter than 1s or longer than 60s
	 */
	public RetryBudgetConfigBuilder window(Duration window) {
		Objects.requireNonNull(window, "window must not be null");
		if (window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
			throw new IllegalArgumentException("Invalid window (" + Durations.format(window)
					+ "): must be between 1s and 60s");
		}
		this.window = window;
		ratioSetting("window (" + Durations.format(window) + ")");
		return this;
	}

	private void tokenBucket(String setting) {
		this.tokenSetting = setting;
		if (!this.ratioSet) {
			this.kind = Kind.TOKEN_BUCKET;
		}
	}

	private void ratioSetting(String setting) {
		this.ratioSetting = setting;
	}

	/**
	 * Builds a configuration from the values set so far: a ratio budget if {@link #ratio(double)} was set
	 * (or the base was one and no token-bucket setting was given), else a token bucket.
	 * @return a new immutable configuration
	 * @throws IllegalArgumentException if {@code ratio} and a token bucket's setting ({@code maxTokens},
	 * {@code tokenRatio}) were both given, or a ratio budget's {@code minPerSecond} or {@code window} was
	 * given to a token bucket; the message names both settings
	 */
	public RetryBudgetConfig build() {
		if (this.ratioSet && this.tokenSetting != null) {
			throw new IllegalArgumentException("Invalid budget: ratio (" + this.ratio + ") and " + this.tokenSetting
					+ " are both set: ratio chooses a ratio budget, maxTokens and tokenRatio are a token bucket's; set one kind's settings");
		}
		if (this.kind == Kind.TOKEN_BUCKET && this.ratioSetting != null) {
			throw new IllegalArgumentException("Invalid budget: " + this.ratioSetting
					+ " is a ratio budget's setting, and this budget is a token bucket" + ((this.tokenSetting != null)
							? " (" + this.tokenSetting + " is set)" : "") + "; set ratio to choose a ratio budget");
		}
		return new RetryBudgetConfig(this.kind, this.maxTokens, this.tokenRatioMillis,
				(this.kind == Kind.RATIO) ? this.ratio : 0, this.minPerSecond, this.window);
	}

}
