package dev.retrykit.spring.boot.autoconfigure;

import dev.retrykit.spring.boot.convert.CompoundDuration;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Hedging settings: instead of backing off, a call sends another copy when no answer came within the
 * delay; max-attempts counts the copies, the first included. Only for idempotent operations.
 */
public class HedgingProperties {

	/**
	 * Whether calls of the instance hedge (async ones, and blocking ones when an executor is set); unset = as
	 * the base config. Default false.
	 */
	private @Nullable Boolean enabled;

	/** Delay after which the next copy starts: a duration (0 = every copy at once) or "adaptive". Default adaptive. */
	private @Nullable String delay;

	/** With an adaptive delay: the quantile of the instance's successful calls' latency to hedge at, in (0, 1). Default 0.95. */
	private @Nullable Double quantile;

	/** Shortest adaptive delay. Default 1ms. */
	@CompoundDuration
	private @Nullable Duration minDelay;

	/** Longest adaptive delay, also the delay until the instance has seen enough calls. Default 1s. */
	@CompoundDuration
	private @Nullable Duration maxDelay;

	/**
	 * Copies after the first are at most this share of the instance's calls over the last 10 seconds, plus
	 * one per second at low traffic, whatever the budget (Finagle's maxExtraLoad); from 0 to 9. Default 0.1.
	 */
	private @Nullable Double maxExtraLoad;

	/**
	 * Whether the thread of a losing blocking copy is interrupted; else the copy is only cancelled and its
	 * late outcome ignored (an interrupt can tear down a pooled connection). Default false.
	 */
	private @Nullable Boolean interruptLosers;

	/**
	 * Blocking methods: the name of the Executor bean that runs each copy as a task while the caller waits
	 * (one with a thread per task, such as virtual threads, or enough threads for every copy). Empty: none, so
	 * a blocking method of a hedging instance fails startup. Default empty.
	 */
	private @Nullable String executor;

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getDelay() {
		return this.delay;
	}

	public void setDelay(@Nullable String delay) {
		this.delay = delay;
	}

	public @Nullable Double getQuantile() {
		return this.quantile;
	}

	public void setQuantile(@Nullable Double quantile) {
		this.quantile = quantile;
	}

	public @Nullable Duration getMinDelay() {
		return this.minDelay;
	}

	public void setMinDelay(@Nullable Duration minDelay) {
		this.minDelay = minDelay;
	}

	public @Nullable Duration getMaxDelay() {
		return this.maxDelay;
	}

	public void setMaxDelay(@Nullable Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	public @Nullable Double getMaxExtraLoad() {
		return this.maxExtraLoad;
	}

	public void setMaxExtraLoad(@Nullable Double maxExtraLoad) {
		this.maxExtraLoad = maxExtraLoad;
	}

	public @Nullable Boolean getInterruptLosers() {
		return this.interruptLosers;
	}

	public void setInterruptLosers(@Nullable Boolean interruptLosers) {
		this.interruptLosers = interruptLosers;
	}

	public @Nullable String getExecutor() {
		return this.executor;
	}

	public void setExecutor(@Nullable String executor) {
		this.executor = executor;
	}

}
