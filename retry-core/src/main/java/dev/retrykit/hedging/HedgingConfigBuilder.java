package dev.retrykit.hedging;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link HedgingConfig}; each setter checks its argument at once, and {@link #build()} checks
 * that {@code minDelay} is not greater than {@code maxDelay}. Obtain one from
 * {@link HedgingConfig#builder()} or {@link HedgingConfig#builder(HedgingConfig)}.
 *
 * <p>Not thread-safe; a built configuration never changes, whatever happens to its builder later.
 */
public final class HedgingConfigBuilder {

	boolean enabled = true;

	@Nullable Duration delay;

	double quantile = HedgingConfig.DEFAULT_QUANTILE;

	Duration minDelay = HedgingConfig.DEFAULT_MIN_DELAY;

	Duration maxDelay = HedgingConfig.DEFAULT_MAX_DELAY;

	@Nullable Executor executor;

	HedgingConfigBuilder() {
	}

	/**
	 * Sets whether the instance hedges. Default {@code true}: a built config is usually meant to hedge;
	 * the Spring properties default to {@code false}.
	 * @param enabled whether to hedge
	 * @return this builder
	 */
	public HedgingConfigBuilder enabled(boolean enabled) {
		this.enabled = enabled;
		return this;
	}

	/**
	 * Sets a fixed delay: copy i+1 starts this long after copy i started. Default: adaptive.
	 * @param delay zero (every copy at once) or more
	 * @return this builder
	 * @throws IllegalArgumentException if {@code delay} is negative
	 */
	public HedgingConfigBuilder delay(Duration delay) {
		Objects.requireNonNull(delay, "delay must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("Invalid delay (" + Durations.format(delay)
					+ "): must be zero or greater (zero sends every copy at once), or adaptive");
		}
		this.delay = delay;
		return this;
	}

	/**
	 * Makes the delay adaptive: the {@link #quantile} of the instance's recent successful attempts'
	 * latency, clamped to [{@link #minDelay}, {@link #maxDelay}]. The default.
	 * @return this builder
	 */
	public HedgingConfigBuilder adaptive() {
		this.delay = null;
		return this;
	}

	/**
	 * Sets the latency quantile an adaptive delay hedges at. Default 0.95.
	 * @param quantile strictly between 0 and 1
	 * @return this builder
	 * @throws IllegalArgumentException if {@code quantile} is not strictly between 0 and 1
	 */
	public HedgingConfigBuilder quantile(double quantile) {
		if (!(quantile > 0 && quantile < 1)) {
			throw new IllegalArgumentException("Invalid quantile (" + quantile + "): must be greater than 0 and less than 1");
		}
		this.quantile = quantile;
		return this;
	}

	/**
	 * Sets the shortest adaptive delay. Default 1ms.
	 * @param minDelay zero or more, at most {@code maxDelay}
	 * @return this builder
	 * @throws IllegalArgumentException if {@code minDelay} is negative
	 */
	public HedgingConfigBuilder minDelay(Duration minDelay) {
		this.minDelay = notNegative("minDelay", minDelay);
		return this;
	}

	/**
	 * Sets the longest adaptive delay, which is also the delay until the instance has seen enough
	 * successful attempts. Default 1s.
	 * @param maxDelay greater than zero, at least {@code minDelay}
	 * @return this builder
	 * @throws IllegalArgumentException if {@code maxDelay} is zero or negative
	 */
	public HedgingConfigBuilder maxDelay(Duration maxDelay) {
		notNegative("maxDelay", maxDelay);
		if (maxDelay.isZero()) {
			throw new IllegalArgumentException("Invalid maxDelay (" + Durations.format(maxDelay) + "): must be greater than zero");
		}
		this.maxDelay = maxDelay;
		return this;
	}

	/**
	 * Sets the executor that runs the copies of the instance's blocking calls
	 * ({@code RetryTemplate.execute} without a {@code RetryState}): each copy is a task on it, and the
	 * calling thread waits for the first acceptable result. A copy that loses, or is cancelled because
	 * the call ended, has its thread interrupted; a copy the executor refuses
	 * ({@link java.util.concurrent.RejectedExecutionException}) is a copy failed with that exception.
	 * Choose an executor with a thread per task or enough threads for {@code maxAttempts} copies of every
	 * concurrent call (virtual threads fit well): copies queued behind others do not race. It must run
	 * every task it accepts: a discarded task (a discard policy, {@code shutdownNow()}'s queued tasks)
	 * is a copy that never ends, which a call with no other copy in flight waits for. Default
	 * {@code null}: blocking calls do not hedge but retry one attempt after another, with the backoff.
	 * @param executor the executor, or {@code null} for none
	 * @return this builder
	 */
	public HedgingConfigBuilder executor(@Nullable Executor executor) {
		this.executor = executor;
		return this;
	}

	/**
	 * {@return a new immutable configuration}
	 * @throws IllegalArgumentException if {@code minDelay} is greater than {@code maxDelay}
	 */
	public HedgingConfig build() {
		if (this.minDelay.compareTo(this.maxDelay) > 0) {
			throw new IllegalArgumentException("Invalid minDelay (" + Durations.format(this.minDelay)
					+ "): must not be greater than maxDelay (" + Durations.format(this.maxDelay) + ")");
		}
		return new HedgingConfig(this);
	}

	private static Duration notNegative(String name, Duration value) {
		Objects.requireNonNull(value, name + " must not be null");
		if (value.isNegative()) {
			throw new IllegalArgumentException("Invalid " + name + " (" + Durations.format(value) + "): must be zero or greater");
		}
		return value;
	}

}
