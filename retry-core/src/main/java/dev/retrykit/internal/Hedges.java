package dev.retrykit.internal;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.hedging.HedgingConfig;
import dev.retrykit.spi.AbandonableTask;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The hedging of one instance: its delay between copies (fixed, or adaptive through a
 * {@link HedgeLatency} window), the bound on its extra load ({@link HedgeLoad}), its timer
 * ({@link HedgeTimer}), and where copies that fall due start ({@link #startLater}). The latency window
 * and the load bound carry over live changes, also through a time with hedging off; a live change that
 * switches hedging off {@linkplain #switchOff() reaches the calls in flight}: they start no further copy
 * by the delay. Thread-safe.
 */
final class Hedges {

	final HedgingConfig config;

	final TimeSource timeSource;

	final RetryCounters counters;

	/** Where the copies of blocking calls run, or {@code null} when blocking calls do not hedge. */
	final @Nullable Executor executor;

	/** Whether a losing blocking copy's thread is interrupted. */
	final boolean interruptLosers;

	/** The fixed delay, or -1 when adaptive. */
	private final long fixedDelayNanos;

	private final @Nullable HedgeLatency latency;

	final HedgeLoad load;

	final HedgeTimer timer;

	private final RetryScheduler scheduler;

	private final @Nullable TimingWheelScheduler wheel;

	/** Set by a live change that switched hedging off: calls in flight start no copy by the delay. */
	private volatile boolean switchedOff;

	/**
	 * @param runtime the instance
	 * @param config its hedging policy
	 * @param previous the hedging the instance had before a live change (on or off), whose latency
	 * window (when the rule is the same) and load bound it keeps, or {@code null}
	 */
	Hedges(RetryRuntime runtime, HedgingConfig config, @Nullable Hedges previous) {
		this.config = config;
		this.timeSource = runtime.timeSource;
		this.counters = runtime.counters;
		this.scheduler = runtime.scheduler;
		this.wheel = runtime.wheel;
		this.executor = config.getExecutor();
		this.interruptLosers = config.isInterruptLosers();
		if (config.isAdaptive()) {
			long min = RetryRuntime.saturatedNanos(config.getMinDelay());
			long max = RetryRuntime.saturatedNanos(config.getMaxDelay());
			HedgeLatency kept = (previous != null) ? previous.latency : null;
			this.fixedDelayNanos = -1;
			this.latency = (kept != null && kept.sameRule(config.getQuantile(), min, max)) ? kept
					: new HedgeLatency(config.getQuantile(), min, max);
		}
		else {
			this.fixedDelayNanos = RetryRuntime.saturatedNanos(Objects.requireNonNull(config.getDelay()));
			this.latency = null;
		}
		RetryCounters counters = this.counters;
		this.load = (previous != null && previous.config.getMaxExtraLoad() == config.getMaxExtraLoad()) ? previous.load
				: new HedgeLoad(config.getMaxExtraLoad(), () -> counters.getAttempts() - counters.getHedgesStarted());
		this.timer = new HedgeTimer(this.timeSource, this.scheduler, this.latency);
	}

	/** @return the delay between copies now */
	long delayNanos() {
		HedgeLatency window = this.latency;
		return (window != null) ? window.delayNanos() : this.fixedDelayNanos;
	}

	/** Records the latency of a successful call, for an adaptive delay. */
	void succeeded(long latencyNanos, long nowNanos) {
		HedgeLatency window = this.latency;
		if (window != null) {
			window.record(latencyNanos, nowNanos);
		}
	}

	/** @return whether the delay is adaptive, so that calls' latencies are wanted */
	boolean isAdaptive() {
		return this.latency != null;
	}

	/** A live change switched hedging off: the calls in flight start no further copy by the delay. */
	void switchOff() {
		this.switchedOff = true;
	}

	/** @return whether a live change switched hedging off since these calls started */
	boolean isSwitchedOff() {
		return this.switchedOff;
	}

	/**
	 * Starts a copy that fell due on its own, handed to the scheduler's executor: never on the timer's
	 * thread, and never after another due copy's start, so that one copy's slow supplier delays no other.
	 * On retrykit's timing wheel it is handed to the wheel's executor at once; on another scheduler it is
	 * scheduled with no delay. A start that is refused (the scheduler or its executor) is abandoned:
	 * {@link HedgeWaits#startRefused}.
	 */
	void startLater(HedgeRace<?> race, boolean byDelay) {
		CopyStart start = new CopyStart(race, byDelay);
		try {
			execute(start);
		}
		catch (RejectedExecutionException ex) {
			start.abandon(ex);
		}
	}

	/**
	 * Times out a copy of a call that has listeners off the timer's thread, handed to the executor as
	 * {@link #startLater} hands a start: the listeners are told about the timeout where it ends, and a
	 * slow one must hold up no other call's pass. Refused (the scheduler or its executor), it times out
	 * on this thread.
	 */
	<T> void timeOutLater(HedgeRace<T> race, HedgeCopy<T> copy) {
		CopyTimeout<T> timeout = new CopyTimeout<>(race, copy);
		try {
			execute(timeout);
		}
		catch (RejectedExecutionException ex) {
			timeout.run();
		}
	}

	/**
	 * Hands a task to the executor, off the timer's thread: the wheel's executor at once, or another
	 * scheduler with no delay.
	 * @throws RejectedExecutionException if the scheduler or its executor refuses it
	 */
	private void execute(AbandonableTask task) {
		if (this.wheel != null) {
			this.wheel.execute(task);
		}
		else {
			this.scheduler.schedule(task, 0, TimeUnit.NANOSECONDS);
		}
	}

	/** A copy's timeout, as a task of its own; abandoned (the scheduler stopped), it runs where it is abandoned. */
	private record CopyTimeout<T>(HedgeRace<T> race, HedgeCopy<T> copy) implements AbandonableTask {

		@Override
		public void run() {
			if (!this.race.isSettled(this.copy)) {
				HedgeWaits.timeOut(this.race, this.copy);
			}
		}

		@Override
		public void abandon(RejectedExecutionException reason) {
			run();
		}

	}

	/** A due copy's start, as a task of its own. */
	private record CopyStart(HedgeRace<?> race, boolean byDelay) implements AbandonableTask {

		@Override
		public void run() {
			this.race.startCopy(this.byDelay, true);
		}

		@Override
		public void abandon(RejectedExecutionException reason) {
			HedgeWaits.startRefused(this.race, reason);
		}

	}

}
