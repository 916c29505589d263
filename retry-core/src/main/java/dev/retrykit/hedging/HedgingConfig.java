package dev.retrykit.hedging;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * How an instance hedges: when no copy of a call answered within the delay, another copy starts while
 * the others go on, up to the instance's {@code maxAttempts} copies in all (the first included); a copy
 * that fails with a retryable failure starts the next one at once. The delay is either fixed
 * ({@link #getDelay()}, zero sends every copy at once) or adaptive: the {@link #getQuantile() quantile}
 * of the instance's recent successful attempts' latency, clamped to
 * [{@link #getMinDelay() minDelay}, {@link #getMaxDelay() maxDelay}], and {@code maxDelay} until the
 * instance has seen enough successful attempts.
 *
 * <p>Hedging sends the same operation more than once at the same time: use it only for idempotent
 * operations. It applies to {@code RetryTemplate.executeAsync}, and to the blocking
 * {@code RetryTemplate.execute} (stateless) when an {@link #getExecutor() executor} is set: each copy
 * then runs as a task on that executor while the calling thread waits for the call's outcome. Without
 * an executor, a blocking call of a hedging instance is a plain retry (one attempt after another, with
 * the instance's backoff).
 *
 * <p>Immutable and thread-safe; built and validated by {@link HedgingConfigBuilder}.
 */
public final class HedgingConfig {

	/** The default {@link #getQuantile() quantile}: {@value}. */
	public static final double DEFAULT_QUANTILE = 0.95;

	/** The default {@link #getMinDelay() minDelay}: 1ms. */
	public static final Duration DEFAULT_MIN_DELAY = Duration.ofMillis(1);

	/** The default {@link #getMaxDelay() maxDelay}: 1s. */
	public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(1);

	/** The default {@link #getMaxExtraLoad() maxExtraLoad}: {@value}. */
	public static final double DEFAULT_MAX_EXTRA_LOAD = 0.1;

	/** The most copies a hedged call may send, the first included: {@value} (Polly's cap; gRFC A6 caps at 5). */
	public static final int MAX_COPIES = 10;

	private final boolean enabled;

	private final @Nullable Duration delay;

	private final double quantile;

	private final Duration minDelay;

	private final Duration maxDelay;

	private final double maxExtraLoad;

	private final boolean interruptLosers;

	private final @Nullable Executor executor;

	HedgingConfig(HedgingConfigBuilder builder) {
		this.enabled = builder.enabled;
		this.delay = builder.delay;
		this.quantile = builder.quantile;
		this.minDelay = builder.minDelay;
		this.maxDelay = builder.maxDelay;
		this.maxExtraLoad = builder.maxExtraLoad;
		this.interruptLosers = builder.interruptLosers;
		this.executor = builder.executor;
	}

	/** {@return a builder holding the defaults: enabled, adaptive at the 0.95 quantile within [1ms, 1s]} */
	public static HedgingConfigBuilder builder() {
		return new HedgingConfigBuilder();
	}

	/**
	 * Starts a builder from another configuration, to change some of its values.
	 * @param base the configuration to start from
	 * @return a builder holding the values of {@code base}
	 * @throws NullPointerException if {@code base} is {@code null}
	 */
	public static HedgingConfigBuilder builder(HedgingConfig base) {
		Objects.requireNonNull(base, "base must not be null");
		HedgingConfigBuilder builder = new HedgingConfigBuilder().enabled(base.enabled).quantile(base.quantile)
				.minDelay(base.minDelay).maxDelay(base.maxDelay).maxExtraLoad(base.maxExtraLoad)
				.interruptLosers(base.interruptLosers).executor(base.executor);
		return (base.delay != null) ? builder.delay(base.delay) : builder.adaptive();
	}

	/** {@return whether the instance hedges (default {@code true} for a built config)} */
	public boolean isEnabled() {
		return this.enabled;
	}

	/** {@return whether the delay follows the instance's observed latency} */
	public boolean isAdaptive() {
		return this.delay == null;
	}

	/** {@return the fixed delay between copies, or {@code null} when it is {@link #isAdaptive() adaptive}} */
	public @Nullable Duration getDelay() {
		return this.delay;
	}

	/** {@return the latency quantile an adaptive delay hedges at, in (0, 1); default 0.95} */
	public double getQuantile() {
		return this.quantile;
	}

	/** {@return the shortest adaptive delay; default 1ms} */
	public Duration getMinDelay() {
		return this.minDelay;
	}

	/** {@return the longest adaptive delay, also the delay until enough samples were seen; default 1s} */
	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	/**
	 * {@return the most copies after the first a hedged instance sends, as a share of its calls: over the
	 * last 10 seconds, copies after the first stay within this share of the calls started, plus one per
	 * second at low traffic (Finagle's {@code BackupRequestFilter}); default 0.1}
	 */
	public double getMaxExtraLoad() {
		return this.maxExtraLoad;
	}

	/**
	 * {@return whether the thread of a blocking copy that lost (or is in flight when the call ends
	 * otherwise) is interrupted; default {@code false}: the copy is cancelled, its late outcome ignored,
	 * its thread left alone (an interrupt can tear down a pooled connection)}
	 */
	public boolean isInterruptLosers() {
		return this.interruptLosers;
	}

	/**
	 * {@return the executor that runs the copies of blocking calls ({@code RetryTemplate.execute}), or
	 * {@code null} when blocking calls do not hedge; default {@code null}}
	 */
	public @Nullable Executor getExecutor() {
		return this.executor;
	}

	/** {@return an executor by class and identity: its own {@code toString()} may show state that changes} */
	static String describe(Executor executor) {
		return executor.getClass().getName() + '@' + Integer.toHexString(System.identityHashCode(executor));
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof HedgingConfig that)) {
			return false;
		}
		return this.enabled == that.enabled && Objects.equals(this.delay, that.delay)
				&& Double.compare(this.quantile, that.quantile) == 0 && this.minDelay.equals(that.minDelay)
				&& this.maxDelay.equals(that.maxDelay) && Double.compare(this.maxExtraLoad, that.maxExtraLoad) == 0
				&& this.interruptLosers == that.interruptLosers && Objects.equals(this.executor, that.executor);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.enabled, this.delay, this.quantile, this.minDelay, this.maxDelay, this.maxExtraLoad,
				this.interruptLosers, this.executor);
	}

	/**
	 * {@return the effective configuration, e.g.
	 * {@code HedgingConfig{delay=adaptive, quantile=0.95, minDelay=1ms, maxDelay=1s, maxExtraLoad=0.1}} or
	 * {@code HedgingConfig{delay=10ms, maxExtraLoad=0.1}}; {@code enabled=false} is shown when disabled,
	 * {@code interruptLosers=true} when set, and the executor
	 * of blocking calls when there is one, by class and identity (its own {@code toString()} may show
	 * state that changes, such as a pool's queue)}
	 */
	@Override
	public String toString() {
		StringBuilder text = new StringBuilder("HedgingConfig{");
		if (!this.enabled) {
			text.append("enabled=false, ");
		}
		if (this.delay != null) {
			text.append("delay=").append(Durations.format(this.delay));
		}
		else {
			text.append("delay=adaptive, quantile=").append(this.quantile).append(", minDelay=")
				.append(Durations.format(this.minDelay)).append(", maxDelay=").append(Durations.format(this.maxDelay));
		}
		text.append(", maxExtraLoad=").append(this.maxExtraLoad);
		if (this.interruptLosers) {
			text.append(", interruptLosers=true");
		}
		if (this.executor != null) {
			text.append(", executor=").append(describe(this.executor));
		}
		return text.append('}').toString();
	}

}
