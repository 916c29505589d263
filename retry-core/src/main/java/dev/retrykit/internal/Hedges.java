package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import dev.retrykit.hedging.HedgingConfig;
import dev.retrykit.spi.AbandonableTask;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The hedging of one instance: its delay between copies (fixed, or adaptive through a
 * {@link HedgeLatency} window that carries over live changes), and the timer that starts the copies
 * that fall due.
 *
 * <p>The timer is one task on the instance's scheduler, not one per call: arming and cancelling a
 * wheel timer per call costs about 190 ns, while a call that goes async here only pushes itself on a
 * lock-free list (one CAS) and reads when the task is armed for (see {@code HedgingBenchmark}). The task
 * runs when the earliest watched call falls due; it takes the whole list, starts the copies that are
 * due, drops the calls that ended, puts the rest back and arms itself for the earliest of them. A call
 * that ended stays on the list until the next pass drops it: the list holds at most the calls of one
 * delay (plus those still running). Copies are started on the scheduler's executor thread, never on
 * its timer thread. When the scheduler refuses the task (it is stopped), calls go on without
 * delay-started copies, and a call that waits for nothing but the timer (a retry after a delay hint) ends
 * as an async call does when its scheduler stops. Thread-safe.
 */
final class Hedges implements AbandonableTask {

	private static final VarHandle HEAD = VarHandles.field(MethodHandles.lookup(), "head", HedgedCall.class);

	private static final VarHandle ARMED_FOR = VarHandles.field(MethodHandles.lookup(), "armedFor", long.class);

	/** {@link #armedFor} when no pass is armed. */
	private static final long NOT_ARMED = Long.MAX_VALUE;

	final HedgingConfig config;

	final TimeSource timeSource;

	private final RetryScheduler scheduler;

	final RetryCounters counters;

	/** Where the copies of blocking calls run, or {@code null} when blocking calls do not hedge. */
	final @Nullable Executor executor;

	/** The fixed delay, or -1 when adaptive. */
	private final long fixedDelayNanos;

	private final @Nullable HedgeLatency latency;

	/** The watched calls, linked through {@link HedgedCall#nextWatched} (via {@link #HEAD}). */
	private volatile @Nullable HedgedCall<?> head;

	/** When the next pass is armed for, or {@link #NOT_ARMED} (via {@link #ARMED_FOR}). */
	private volatile long armedFor = NOT_ARMED;

	/**
	 * @param runtime the instance
	 * @param config its hedging policy
	 * @param previous the hedging of the runtime it replaces, whose latency window it keeps, or {@code null}
	 */
	Hedges(RetryRuntime runtime, HedgingConfig config, @Nullable Hedges previous) {
		this.config = config;
		this.timeSource = runtime.timeSource;
		this.scheduler = runtime.scheduler;
		this.counters = runtime.counters;
		this.executor = config.getExecutor();
		if (config.isAdaptive()) {
			this.fixedDelayNanos = -1;
			this.latency = (previous != null && previous.latency != null && previous.config.equals(config))
					? previous.latency : new HedgeLatency(config.getQuantile(),
							RetryRuntime.saturatedNanos(config.getMinDelay()), RetryRuntime.saturatedNanos(config.getMaxDelay()));
		}
		else {
			this.fixedDelayNanos = RetryRuntime.saturatedNanos(java.util.Objects.requireNonNull(config.getDelay()));
			this.latency = null;
		}
	}

	/** @return the delay between copies now */
	long delayNanos() {
		HedgeLatency window = this.latency;
		return (window != null) ? window.delayNanos() : this.fixedDelayNanos;
	}

	/** Records the latency of a successful copy, for an adaptive delay. */
	void succeeded(long latencyNanos) {
		HedgeLatency window = this.latency;
		if (window != null) {
			window.record(latencyNanos);
		}
	}

	/** @return whether the delay is adaptive, so that copies' latencies are wanted */
	boolean isAdaptive() {
		return this.latency != null;
	}

	/** Watches a call until it ended or may start no more copies; its next copy is due at {@code dueNanos}. */
	void watch(HedgedCall<?> call, long dueNanos) {
		HedgedCall<?> current;
		do {
			current = this.head;
			call.nextWatched = current;
		}
		while (!HEAD.compareAndSet(this, current, call));
		if (dueNanos < this.armedFor) {
			arm(dueNanos);
		}
	}

	/** Arms a pass for {@code dueNanos} if none is armed that early: a watched call's next copy moved earlier. */
	void rearm(long dueNanos) {
		if (dueNanos < this.armedFor) {
			arm(dueNanos);
		}
	}

	private void arm(long dueNanos) {
		for (;;) {
			long current = this.armedFor;
			if (dueNanos >= current) {
				return;
			}
			if (ARMED_FOR.compareAndSet(this, current, dueNanos)) {
				break;
			}
		}
		try {
			this.scheduler.schedule(this, Math.max(0, dueNanos - this.timeSource.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			ARMED_FOR.compareAndSet(this, dueNanos, NOT_ARMED);
			abandon(ex);
		}
	}

	/**
	 * The scheduler stopped (or refused the pass): every watched call is told, and goes on with its copies
	 * in flight, or ends if it has none ({@link HedgedCall#timerStopped}).
	 */
	@Override
	public void abandon(RejectedExecutionException reason) {
		HedgedCall<?> call = (HedgedCall<?>) HEAD.getAndSet(this, null);
		while (call != null) {
			HedgedCall<?> next = call.nextWatched;
			call.nextWatched = null;
			call.timerStopped(reason);
			call = next;
		}
	}

	/** A pass: starts the copies that are due, keeps watching the calls that may start more. */
	@Override
	public void run() {
		// Disarm first: a call watched from now on arms a pass of its own if this one misses it.
		this.armedFor = NOT_ARMED;
		HedgedCall<?> call = (HedgedCall<?>) HEAD.getAndSet(this, null);
		HedgeLatency window = this.latency;
		if (window != null) {
			window.refresh();
		}
		HedgedCall<?> keptFirst = null;
		HedgedCall<?> keptLast = null;
		long earliest = NOT_ARMED;
		long now = this.timeSource.nanoTime();
		while (call != null) {
			HedgedCall<?> next = call.nextWatched;
			call.nextWatched = null;
			long due = call.timerPassed(now);
			if (due != HedgedCall.UNWATCHED) {
				if (keptLast == null) {
					keptFirst = call;
				}
				else {
					keptLast.nextWatched = call;
				}
				keptLast = call;
				earliest = Math.min(earliest, due);
			}
			call = next;
		}
		if (keptFirst != null && keptLast != null) {
			HedgedCall<?> current;
			do {
				current = this.head;
				keptLast.nextWatched = current;
			}
			while (!HEAD.compareAndSet(this, current, keptFirst));
			arm(earliest);
		}
	}

}
