package dev.retrykit.scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * One scheduled task of a {@link TimingWheelScheduler}: the handle a caller gets back and, at the same
 * time, the intrusive list node the wheel links into its incoming stack and its buckets.
 *
 * <p>Kept deliberately small because a million of them may be pending: with compressed oops the
 * layout is a 12-byte header, {@code long tickAndState} and three references ({@code owner},
 * {@code task}, {@code next}) = 32 bytes, with no padding. There is no {@code prev} link: nodes only
 * leave a bucket while the timer walks it (cancelled nodes are unlinked lazily), so a singly linked
 * list is enough. The state shares a long with the deadline tick, so that ending a node (cancelling
 * it, firing it) is a CAS on a primitive followed by clearing {@code task}: neither is a reference
 * store that a collector's post-write barrier sees (under G1, a memory fence and a dirtied card for
 * each of a million cancelled nodes). The owner reference lets {@link #cancel()} keep the
 * scheduler's counters exact.
 *
 * <p>Thread-safety: {@link #tickAndState} is the only field written by several threads, always by
 * CAS; the thread whose CAS ends the node owns the task and clears the reference. {@link #next} is
 * written by the scheduling thread before the node is published and afterwards only by the thread
 * that drives the wheel.
 */
final class WheelTimeout implements ScheduledTask {

	/** A final state, kept in the high bits of {@link #tickAndState}. */
	static final class State {

		private final String name;

		private final long bits;

		private State(String name, long bits) {
			this.name = name;
			this.bits = bits;
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	/** The largest deadline tick a node keeps; later ones (ten-millisecond ticks: 300 million years) saturate to it. */
	static final long MAX_TICK = (1L << 60) - 1;

	/**
	 * In {@link #tickAndState}: the low bits hold a delay in nanoseconds, not yet a tick; the timer's
	 * next pass counts it from its own clock reading ({@link #resolve}).
	 */
	private static final long FROM_NEXT_PASS = 1L << 60;

	private static final long STATE_MASK = 3L << 61;

	static final State CANCELLED = new State("CANCELLED", 1L << 61);
	static final State EXPIRED = new State("EXPIRED", 2L << 61);
	/** Handed back by {@link TimingWheelScheduler#stop()} without having run. */
	static final State STOPPED = new State("STOPPED", 3L << 61);

	private static final State[] STATES = { null, CANCELLED, EXPIRED, STOPPED };

	private static final VarHandle TICK_AND_STATE;

	static {
		try {
			TICK_AND_STATE = MethodHandles.lookup().findVarHandle(WheelTimeout.class, "tickAndState", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final TimingWheelScheduler owner;

	/**
	 * The first wheel tick at or after the deadline (the task fires when that tick is processed) in the
	 * low 61 bits, and the state in the two above them: zero while pending, else a {@link State}'s bits
	 * (via {@link #TICK_AND_STATE}).
	 */
	private volatile long tickAndState;

	/** The task while pending; cleared by the thread that ended the node. */
	private @Nullable Runnable task;

	/** Link in the incoming stack, then in a bucket; owned by the thread driving the wheel. */
	@Nullable WheelTimeout next;

	/**
	 * @param owner the scheduler
	 * @param task the task
	 * @param deadlineTick the tick on which it fires (saturating at {@link #MAX_TICK})
	 */
	WheelTimeout(TimingWheelScheduler owner, Runnable task, long deadlineTick) {
		this.owner = owner;
		this.task = task;
		TICK_AND_STATE.set(this, Math.min(deadlineTick, MAX_TICK)); // plain: published with the node itself
	}

	/**
	 * A node whose delay counts from the timer's next pass ({@link #resolve}).
	 * @param owner the scheduler
	 * @param task the task
	 * @param delayNanos the delay (saturating at {@link #MAX_TICK} nanoseconds, 36 years)
	 * @return the node
	 */
	static WheelTimeout fromNextPass(TimingWheelScheduler owner, Runnable task, long delayNanos) {
		WheelTimeout node = new WheelTimeout(owner, task, 0);
		TICK_AND_STATE.set(node, FROM_NEXT_PASS | Math.min(Math.max(0, delayNanos), MAX_TICK)); // plain, as above
		return node;
	}

	/**
	 * A node that is never pending: a marker.
	 * @param owner the scheduler
	 * @param state its state
	 */
	WheelTimeout(TimingWheelScheduler owner, State state) {
		this.owner = owner;
		TICK_AND_STATE.set(this, MAX_TICK | state.bits);
	}

	/** @return the tick on which the task fires; for a node not yet {@linkplain #resolve resolved}, its delay */
	long deadlineTick() {
		return this.tickAndState & MAX_TICK;
	}

	/**
	 * For a node whose delay counts from the timer's next pass: fixes its deadline tick, keeping its
	 * state (a concurrent cancel may have ended it). Called by the thread that drives the wheel.
	 * @param clock the wheel's clock
	 * @param nowNanos a reading of the clock's time source taken after the node was pushed
	 */
	void resolve(TickClock clock, long nowNanos) {
		long current = this.tickAndState;
		while ((current & FROM_NEXT_PASS) != 0) {
			long tick = Math.min(clock.deadlineTick(nowNanos, current & MAX_TICK), MAX_TICK);
			long witness = (long) TICK_AND_STATE.compareAndExchange(this, current, (current & STATE_MASK) | tick);
			if (witness == current) {
				return;
			}
			current = witness;
		}
	}

	/** @return whether the node's delay still counts from the timer's next pass */
	boolean isFromNextPass() {
		return (this.tickAndState & FROM_NEXT_PASS) != 0;
	}

	/**
	 * Moves this node out of the pending state and takes its task, releasing the node's reference to it.
	 * @param newState the final state
	 * @return the task, or {@code null} if the node had already left the pending state
	 */
	@Nullable Runnable claim(State newState) {
		long current = this.tickAndState;
		while ((current & STATE_MASK) == 0) {
			long witness = (long) TICK_AND_STATE.compareAndExchange(this, current, current | newState.bits);
			if (witness == current) {
				Runnable claimed = this.task;
				this.task = null;
				return claimed;
			}
			current = witness;
		}
		return null;
	}

	boolean isPending() {
		return (this.tickAndState & STATE_MASK) == 0;
	}

	private @Nullable State state() {
		return STATES[(int) ((this.tickAndState & STATE_MASK) >>> 61)];
	}

	/**
	 * Cancels the task if it has not fired. O(1): one CAS, and the task reference is dropped at once;
	 * the node is unlinked lazily the next time the timer visits it.
	 */
	@Override
	public boolean cancel() {
		if (claim(CANCELLED) == null) {
			return false;
		}
		this.owner.onCancelled();
		return true;
	}

	@Override
	public boolean isCancelled() {
		return state() == CANCELLED;
	}

	@Override
	public boolean isExpired() {
		return state() == EXPIRED;
	}

	@Override
	public String toString() {
		State state = state();
		return "WheelTimeout[state=" + ((state != null) ? state : "PENDING") + ", deadlineTick=" + deadlineTick() + "]";
	}

}
