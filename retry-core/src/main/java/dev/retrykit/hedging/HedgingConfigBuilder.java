package dev.retrykit.hedging;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;

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

	double maxExtraLoad = HedgingConfig.DEFAULT_MAX_EXTRA_LOAD;

	boolean interruptLosers;

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
	 * Bounds the copies after the first: over the last 10 seconds they stay within this share of the
	 * instance's calls, plus one per second at low traffic, whatever the budget and also while an adaptive
	 * delay catches up with a latency shift (Finagle's {@code maxExtraLoad}). A copy the bound refuses is
	 * not sent and counted as refused. Default 0.1.
	 * @param maxExtraLoad from 0 to {@value HedgingConfig#MAX_COPIES} less one
	 * @return this builder
	 * @throws IllegalArgumentException if {@code maxExtraLoad} is negative, above 9 or not a number
	 */
	public HedgingConfigBuilder maxExtraLoad(double maxExtraLoad) {
		if (!(maxExtraLoad >= 0 && maxExtraLoad <= HedgingConfig.MAX_COPIES - 1)) {
			throw new IllegalArgumentException("Invalid maxExtraLoad (" + maxExtraLoad + "): must be from 0 to "
					+ (HedgingConfig.MAX_COPIES - 1) + " (a share of the instance's calls; a call sends at most "
					+ HedgingConfig.MAX_COPIES + " copies)");
		}
		this.maxExtraLoad = maxExtraLoad;
		return this;
	}

	/**
	 * Sets whether the thread of a blocking copy that lost, or is in flight when the call ends otherwise,
	 * is interrupted. Default {@code false}: the copy is cancelled and its late outcome ignored, but its
	 * thread is not interrupted, as an interrupt can tear down a pooled connection (Failsafe and
	 * Resilience4j make interruption opt-in too).
	 * @param interruptLosers whether to interrupt
	 * @return this builder
	 */
	public HedgingConfigBuilder interruptLosers(boolean interruptLosers) {
		this.interruptLosers = interruptLosers;
		return this;
	}

	/**
	 * Sets the executor that runs the copies of the instance's blocking calls
	 * ({@code RetryTemplate.execute} without a {@code RetryState}): each copy is a task on it, the first
	 * included, and the calling thread waits for the first acceptable result. A copy that loses, or is
	 * cancelled because the call ended, is cancelled (its thread interrupted only with
	 * {@link #interruptLosers}); a copy the executor refuses
	 * ({@link java.util.concurrent.RejectedExecutionException}) is a copy failed with that exception, and
	 * so is a copy that was never run when the executor terminated ({@code shutdownNow()}). Choose an
	 * executor with a thread per task or enough threads for {@code maxAttempts} copies of every
	 * concurrent call (virtual threads fit well): copies queued behind others do not race. Default
	 * {@code null}: blocking calls do not hedge but retry one attempt after another, with the backoff.
	 * @param executor the executor, or {@code null} for none
	 * @return this builder
	 * @throws IllegalArgumentException if {@code executor} is a {@link ThreadPoolExecutor} whose rejection
	 * policy runs a refused task on the calling thread ({@link ThreadPoolExecutor.CallerRunsPolicy}: the
	 * caller would run the copy itself and hedging would silently stop) or drops it unseen
	 * ({@link ThreadPoolExecutor.DiscardPolicy}, {@link ThreadPoolExecutor.DiscardOldestPolicy})
	 */
	public HedgingConfigBuilder executor(@Nullable Executor executor) {
		checkRejectionPolicy(executor);
		this.executor = executor;
		return this;
	}

	/**
	 * Checks that an executor of blocking copies neither runs a refused copy on the calling thread nor
	 * drops it unseen.
	 * @param executor the executor, or {@code null}
	 * @throws IllegalArgumentException if it does
	 */
	static void checkRejectionPolicy(@Nullable Executor executor) {
		if (!(executor instanceof ThreadPoolExecutor pool)) {
			return;
		}
		RejectedExecutionHandler policy = pool.getRejectedExecutionHandler();
		String what;
		if (policy instanceof ThreadPoolExecutor.CallerRunsPolicy) {
			what = "runs a refused copy on the calling thread, which then waits for it: the call would not hedge";
		}
		else if (policy instanceof ThreadPoolExecutor.DiscardPolicy
				|| policy instanceof ThreadPoolExecutor.DiscardOldestPolicy) {
			what = "drops a refused copy without telling anyone";
		}
		else {
			return;
		}
		throw new IllegalArgumentException("Invalid executor (" + HedgingConfig.describe(executor)
				+ "): its rejection policy " + policy.getClass().getSimpleName() + " " + what
				+ "; use AbortPolicy (the default: a refused copy fails with RejectedExecutionException) or an executor"
				+ " with a thread per task");
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
