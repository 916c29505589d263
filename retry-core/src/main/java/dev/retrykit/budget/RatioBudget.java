package dev.retrykit.budget;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongUnaryOperator;
import java.util.random.RandomGenerator;

import dev.retrykit.spi.TimeSource;
import dev.retrykit.text.Durations;

/**
 * A retry budget with Finagle's {@code RetryBudget} semantics, as {@link RetryBudget} describes: a retry
 * may start while the retries of the last window stay within {@code ratio} × the calls of the window plus
 * the reserve ({@code minPerSecond} × the window's seconds), and the retries of the last second within
 * {@code ratio} × that second's calls plus the reserve. Calls and retries are counted in slots of a tenth
 * of a second, so a deposit leaves the window one window after its call (the retries with it: that is how
 * the reserve comes back).
 *
 * <p>Shared with a cluster, the reserve is the fleet's: each of {@code n} replicas keeps {@code 1/n} of
 * it, so the fleet's retries stay within {@code ratio} × the fleet's calls plus one reserve in every
 * window and in every second, however many replicas there are; the ratio part needs no exchange, since
 * each replica's own calls fund its share and the shares add up to the fleet's calls.
 *
 * <p>Thread-safe. A call costs one reading of the time source's {@linkplain TimeSource#coarseNanoTime()
 * coarse clock} (a field read on the system's) and one atomic add on its slot; a retry one compare-and-set.
 * Once per slot (ten times a second at most) the first call of a new slot sums the window's slots under
 * a lock. Nothing allocates after construction.
 */
final class RatioBudget extends RetryBudget {

	static final long SLOT_NANOS = 100_000_000L;

	/** The slots of the last second: the current one and the nine before it. */
	static final int SECOND_SLOTS = 10;

	private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);

	private final double ratio;

	/** The reserve of the whole budget, in retries per window. */
	private final double reserve;

	private final int windowSlots;

	/** Per slot, by absolute slot number modulo the window: the calls and the retries counted in it. */
	private final long[] calls;

	private final long[] retries;

	/** This replica's part of the reserve: all of it, or {@code 1/n} of it shared by {@code n} replicas. */
	private volatile double reserveShare;

	/** The absolute number of the current slot. */
	private volatile long slot;

	/** The current slot's index in {@link #calls} and {@link #retries}; written before {@link #slot}. */
	private volatile int slotIndex;

	/** The slot the budget started counting in (its predecessor's, when it replaced one). Locked. */
	private long firstSlot;

	/**
	 * What the window's calls are multiplied by: 1 once the budget has counted a full window; before,
	 * the window's length over the time counted (at least a second), so that a budget younger than its
	 * window counts its calls at the rate it has seen them (a replica just started is not starved of the
	 * share a full window of the same traffic would fund). The retries of that time count as they are, so
	 * the first window allows no more than a full window of the same traffic would.
	 */
	private volatile double windowScale;

	/** Sums over the slots of the window, and of the second, before the current one. */
	private volatile long windowCalls;

	private volatile long windowRetries;

	private volatile long secondCalls;

	private volatile long secondRetries;

	private volatile boolean shared;

	/** How many replicas share the reserve, as the cluster last counted them; 1 while not shared. */
	private int replicas = 1;

	RatioBudget(String name, RetryBudgetConfig config, TimeSource timeSource) {
		super(name, config, timeSource);
		this.ratio = config.getRatio();
		long windowNanos = config.getWindow().toNanos();
		this.windowSlots = (int) ((windowNanos + SLOT_NANOS - 1) / SLOT_NANOS);
		this.reserve = config.getMinPerSecond() * (windowNanos / 1e9);
		this.reserveShare = this.reserve;
		this.calls = new long[this.windowSlots];
		this.retries = new long[this.windowSlots];
		long now = Math.floorDiv(timeSource.coarseNanoTime(), SLOT_NANOS);
		this.firstSlot = now;
		this.windowScale = windowScale(now);
		this.slotIndex = index(now);
		this.slot = now;
	}

	@Override
	public RetryBudget withConfig(RetryBudgetConfig config) {
		RetryBudget next = RetryBudget.create(getName(), config, this.timeSource);
		if (next instanceof RatioBudget budget) {
			budget.carryOver(this);
		}
		return next;
	}

	/** Takes over the slots of the budget this one replaces, as many as both windows hold. */
	private synchronized void carryOver(RatioBudget previous) {
		synchronized (previous) {
			long now = previous.currentSlot();
			int slots = Math.min(this.windowSlots, previous.windowSlots);
			for (int back = 0; back < slots; back++) {
				long number = now - back;
				this.calls[index(number)] = (long) SLOTS.getVolatile(previous.calls, previous.index(number));
				this.retries[index(number)] = (long) SLOTS.getVolatile(previous.retries, previous.index(number));
			}
			this.firstSlot = previous.firstSlot;
			this.slotIndex = index(now);
			this.slot = now;
			this.shared = previous.shared;
			this.replicas = previous.replicas;
			this.reserveShare = this.reserve / this.replicas;
			resum(now);
		}
	}

	@Override
	public void onCall() {
		SLOTS.getAndAdd(this.calls, currentIndex(), 1L);
	}

	@Override
	public void onSuccess() {
	}

	@Override
	public void onFailure() {
	}

	@Override
	public boolean tryAcquireRetry() {
		int current = currentIndex();
		for (;;) {
			long retried = (long) SLOTS.getVolatile(this.retries, current);
			long called = (long) SLOTS.getVolatile(this.calls, current);
			if (balance(called, retried) < 1) {
				return false;
			}
			if (SLOTS.compareAndSet(this.retries, current, retried, retried + 1)) {
				return true;
			}
		}
	}

	/** The retries allowed now: the lesser of the window's and the second's room, given the current slot's counts. */
	private double balance(long calledNow, long retriedNow) {
		double reserved = this.reserveShare;
		double window = this.ratio * this.windowScale * (this.windowCalls + calledNow) + reserved
				- (this.windowRetries + retriedNow);
		double second = this.ratio * (this.secondCalls + calledNow) + reserved - (this.secondRetries + retriedNow);
		return Math.min(window, second);
	}

	@Override
	public double getAvailable() {
		int current = currentIndex();
		double balance = balance((long) SLOTS.getVolatile(this.calls, current), (long) SLOTS.getVolatile(this.retries, current));
		return Math.max(0, Math.floor(balance));
	}

	@Override
	public double getTokens() {
		return getAvailable();
	}

	@Override
	public synchronized void synchronise(LongUnaryOperator exchange, int replicas, RandomGenerator random) {
		this.shared = true;
		this.replicas = Math.max(1, replicas);
		this.reserveShare = this.reserve / this.replicas;
	}

	/** {@return whether the budget is shared with a cluster, its reserve divided among the replicas} */
	boolean isShared() {
		return this.shared;
	}

	/**
	 * {@return the index of the slot that the clock is in, after moving the window on to it if needed}
	 * The clock is the time source's coarse one: a slot is a tenth of a second, a millisecond late is
	 * nothing, and on the system clock the reading is a field read instead of a clock read.
	 */
	private int currentIndex() {
		long now = Math.floorDiv(this.timeSource.coarseNanoTime(), SLOT_NANOS);
		if (now > this.slot) {
			advance(now);
		}
		// A clock read just before another thread moved the window on counts in the slot it moved to.
		return this.slotIndex;
	}

	/** {@return the absolute number of the slot that the clock is in, after moving the window on to it if needed} */
	private long currentSlot() {
		long now = Math.floorDiv(this.timeSource.coarseNanoTime(), SLOT_NANOS);
		long current = this.slot;
		if (now > current) {
			advance(now);
			return now;
		}
		return current;
	}

	private synchronized void advance(long now) {
		long current = this.slot;
		if (now <= current) {
			return;
		}
		long passed = Math.min(now - current, this.windowSlots);
		for (long number = now - passed + 1; number <= now; number++) {
			SLOTS.setVolatile(this.calls, index(number), 0L);
			SLOTS.setVolatile(this.retries, index(number), 0L);
		}
		resum(now);
		this.slotIndex = index(now);
		this.slot = now;
	}

	/** Sums the slots before {@code now}: the window's and the second's. Holds the lock. */
	private void resum(long now) {
		long windowCalled = 0;
		long windowRetried = 0;
		long secondCalled = 0;
		long secondRetried = 0;
		for (int back = 1; back < this.windowSlots; back++) {
			int index = index(now - back);
			long called = (long) SLOTS.getVolatile(this.calls, index);
			long retried = (long) SLOTS.getVolatile(this.retries, index);
			windowCalled += called;
			windowRetried += retried;
			if (back < SECOND_SLOTS) {
				secondCalled += called;
				secondRetried += retried;
			}
		}
		this.windowScale = windowScale(now);
		this.windowCalls = windowCalled;
		this.windowRetries = windowRetried;
		this.secondCalls = secondCalled;
		this.secondRetries = secondRetried;
	}

	/** {@return the {@link #windowScale} for the slot {@code now}} Holds the lock. */
	private double windowScale(long now) {
		long counted = now - this.firstSlot + 1;
		return (counted >= this.windowSlots) ? 1.0 : this.windowSlots / (double) Math.max(SECOND_SLOTS, counted);
	}

	private int index(long number) {
		return (int) Math.floorMod(number, (long) this.windowSlots);
	}

	/**
	 * @return the name, balance and configuration, e.g.
	 * {@code RetryBudget{name='db', available=12.0, ratio=0.2, minPerSecond=10, window=10s}}
	 */
	@Override
	public String toString() {
		RetryBudgetConfig config = getConfig();
		return "RetryBudget{name='" + getName() + "', available=" + getAvailable() + ", ratio=" + config.getRatio()
				+ ", minPerSecond=" + config.getMinPerSecond() + ", window="
				+ Durations.format(config.getWindow()) + "}";
	}

}
