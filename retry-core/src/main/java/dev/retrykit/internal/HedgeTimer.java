package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import dev.retrykit.spi.AbandonableTask;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The hedging timer of one instance: it watches the hedged calls that wait for a time (their next
 * copy's, a copy's timeout, the call's deadline) and tells each when that time came
 * ({@link HedgeWaits#timerPassed}).
 *
 * <p>One task on the instance's scheduler, not one per call: arming and cancelling a wheel timer per
 * call costs about 190 ns, while a call that goes async here pushes a {@link Watch} on a lock-free list
 * (one CAS) and reads when the task is armed for ({@code HedgingBenchmark}). The task runs when the
 * earliest watched call falls due; it takes the whole list, tells the calls that are due, drops the
 * nodes of the calls that ended, puts the rest back and arms itself for the earliest of them. A call
 * that ends empties its node at once ({@link Watch#race}), so the node left on the list until the next
 * pass holds nothing of the call (its result may be large). A pass never runs a copy's supplier: a
 * call that is due hands its copy's start to the executor on its own ({@link Hedges#startLater}).
 * When the scheduler refuses the task (it is stopped), every watched call is told
 * ({@link HedgeWaits#timerStopped}). Thread-safe.
 */
final class HedgeTimer implements AbandonableTask {

	private static final VarHandle HEAD = VarHandles.field(MethodHandles.lookup(), "head", Watch.class);

	private static final VarHandle ARMED_FOR = VarHandles.field(MethodHandles.lookup(), "armedFor", long.class);

	/** {@link #armedFor} when no pass is armed. */
	private static final long NOT_ARMED = Long.MAX_VALUE;

	/** {@link HedgeWaits#timerPassed} result: the timer no longer watches this call. */
	static final long UNWATCHED = Long.MIN_VALUE;

	private final TimeSource timeSource;

	private final RetryScheduler scheduler;

	private final @Nullable HedgeLatency latency;

	/** The watched calls' nodes (via {@link #HEAD}). */
	private volatile @Nullable Watch head;

	/** When the next pass is armed for, or {@link #NOT_ARMED} (via {@link #ARMED_FOR}). */
	private volatile long armedFor = NOT_ARMED;

	HedgeTimer(TimeSource timeSource, RetryScheduler scheduler, @Nullable HedgeLatency latency) {
		this.timeSource = timeSource;
		this.scheduler = scheduler;
		this.latency = latency;
	}

	/** A watched call on the timer's list; emptied when the call ends, dropped at the next pass. */
	static final class Watch {

		/** The call, until it ends or no longer waits for a time. */
		volatile @Nullable HedgeRace<?> race;

		@Nullable Watch next;

		Watch(HedgeRace<?> race) {
			this.race = race;
		}

	}

	/** Watches a call's node; the call's next time is {@code dueNanos}. */
	void watch(Watch node, long dueNanos) {
		push(node, node);
		rearm(dueNanos);
	}

	/** Puts the chain {@code first .. last} (linked by {@link Watch#next}) on the list: one CAS, retried on contention. */
	private void push(Watch first, Watch last) {
		Watch current;
		do {
			current = this.head;
			last.next = current;
		}
		while (!HEAD.compareAndSet(this, current, first));
	}

	/** Arms a pass for {@code dueNanos} if none is armed that early: a watched call's next time moved earlier. */
	void rearm(long dueNanos) {
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

	/** The scheduler stopped (or refused the pass): every watched call is told. */
	@Override
	public void abandon(RejectedExecutionException reason) {
		Watch node = (Watch) HEAD.getAndSet(this, null);
		while (node != null) {
			Watch next = node.next;
			node.next = null;
			HedgeRace<?> race = node.race;
			if (race != null) {
				HedgeWaits.timerStopped(race, node, reason);
			}
			node = next;
		}
	}

	/** A pass: tells the calls that are due, keeps watching those that wait for a later time. */
	@Override
	public void run() {
		// Disarm first: a call watched from now on arms a pass of its own if this one misses it.
		this.armedFor = NOT_ARMED;
		Watch node = (Watch) HEAD.getAndSet(this, null);
		long now = this.timeSource.nanoTime();
		HedgeLatency window = this.latency;
		if (window != null) {
			window.refresh(now);
		}
		Watch keptFirst = null;
		Watch keptLast = null;
		long earliest = NOT_ARMED;
		while (node != null) {
			Watch next = node.next;
			node.next = null;
			HedgeRace<?> race = node.race;
			long due = (race != null) ? HedgeWaits.timerPassed(race, node, now) : UNWATCHED;
			if (due != UNWATCHED) {
				if (keptLast == null) {
					keptFirst = node;
				}
				else {
					keptLast.next = node;
				}
				keptLast = node;
				earliest = Math.min(earliest, due);
			}
			node = next;
		}
		if (keptFirst != null && keptLast != null) {
			push(keptFirst, keptLast);
			rearm(earliest);
		}
	}

	/** @return the nodes on the list now, emptied ones included (for tests) */
	int watchedNodes() {
		int count = 0;
		for (Watch node = this.head; node != null; node = node.next) {
			count++;
		}
		return count;
	}

}
