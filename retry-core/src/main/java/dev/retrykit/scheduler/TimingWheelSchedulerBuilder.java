package dev.retrykit.scheduler;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;

import dev.retrykit.spi.TimeSource;

/**
 * Builds a {@link TimingWheelScheduler}; obtained from {@link TimingWheelScheduler#builder()}.
 *
 * <p>Every setter validates its argument at once and throws {@link IllegalArgumentException} (a bad
 * value, with the value and the rule in the message) or {@link NullPointerException} (a null). Not
 * thread-safe; {@link #build()} copies the settings, so a builder may be reused.
 */
public final class TimingWheelSchedulerBuilder {

	/** Largest wheel size: a power of two that still fits in an {@code int}. */
	static final int MAX_WHEEL_SIZE = 1 << 30;

	static final Duration MAX_TICK = Duration.ofDays(1);

	Duration tick = Duration.ofMillis(10);

	int wheelSize = 512;

	Executor executor = ForkJoinPool.commonPool();

	TimeSource timeSource = TimeSource.SYSTEM;

	String threadName = "retrykit-timer";

	RejectedTaskHandler rejectionHandler = RejectedTaskHandler.ABANDON;

	boolean manual;

	/** Creates the timer thread; tests replace it to make the thread fail to start. */
	Function<Runnable, Thread> threadFactory = Thread::new;

	TimingWheelSchedulerBuilder() {
	}

	/**
	 * Sets the tick: the resolution of the timer. A task fires on the first tick at or after its
	 * deadline, so it may fire up to one tick late, never early. Default 10 ms.
	 * @param tick greater than zero and at most one day
	 * @return this builder
	 * @throws IllegalArgumentException if the tick is out of range
	 */
	public TimingWheelSchedulerBuilder tick(Duration tick) {
		Objects.requireNonNull(tick, "tick must not be null");
		if (tick.isNegative() || tick.isZero() || tick.compareTo(MAX_TICK) > 0) {
			throw new IllegalArgumentException(
					"Invalid tick (" + tick + "): must be greater than zero and at most " + MAX_TICK);
		}
		this.tick = tick;
		return this;
	}

	/**
	 * Sets the number of buckets. It is rounded up to the next power of two (so a bucket index is a
	 * mask, not a division): 500 becomes 512. One rotation lasts {@code tick × wheelSize}; longer delays
	 * wait in their bucket for further rotations. Default 512 (5.12 s per rotation at 10 ms).
	 * @param wheelSize between 1 and 1073741824 (2^30)
	 * @return this builder
	 * @throws IllegalArgumentException if the size is out of range
	 */
	public TimingWheelSchedulerBuilder wheelSize(int wheelSize) {
		if (wheelSize < 1 || wheelSize > MAX_WHEEL_SIZE) {
			throw new IllegalArgumentException(
					"Invalid wheelSize (" + wheelSize + "): must be between 1 and " + MAX_WHEEL_SIZE);
		}
		this.wheelSize = wheelSize;
		return this;
	}

	/**
	 * Sets the executor every due task is handed to; tasks never run on the timer thread itself (unless
	 * this executor runs them inline, which only tests should do). Whatever {@code execute} throws, an
	 * {@link Error} included, counts as a rejection (see {@link #rejectionHandler}) and never stops the
	 * timer; with an inline executor that includes what the task itself throws. Default {@link ForkJoinPool#commonPool()}.
	 * @param executor the executor
	 * @return this builder
	 */
	public TimingWheelSchedulerBuilder executor(Executor executor) {
		this.executor = Objects.requireNonNull(executor, "executor must not be null");
		return this;
	}

	/**
	 * Sets the time source the wheel reads deadlines and ticks from. Default {@link TimeSource#SYSTEM}.
	 * @param timeSource the time source
	 * @return this builder
	 */
	public TimingWheelSchedulerBuilder timeSource(TimeSource timeSource) {
		this.timeSource = Objects.requireNonNull(timeSource, "timeSource must not be null");
		return this;
	}

	/**
	 * Sets the name of the timer thread. Default {@code retrykit-timer}. Ignored in manual mode.
	 * @param threadName a non-blank name
	 * @return this builder
	 * @throws IllegalArgumentException if the name is blank
	 */
	public TimingWheelSchedulerBuilder threadName(String threadName) {
		Objects.requireNonNull(threadName, "threadName must not be null");
		if (threadName.isBlank()) {
			throw new IllegalArgumentException("Invalid threadName ('" + threadName + "'): must not be blank");
		}
		this.threadName = threadName;
		return this;
	}

	/**
	 * Sets what happens to a due task the executor refuses. The task is always counted in
	 * {@link TimingWheelScheduler#rejectedCount()} first. Default {@link RejectedTaskHandler#ABANDON}: logged,
	 * and an async call or failback task waiting on it ends.
	 * @param rejectionHandler the handler
	 * @return this builder
	 */
	public TimingWheelSchedulerBuilder rejectionHandler(RejectedTaskHandler rejectionHandler) {
		this.rejectionHandler = Objects.requireNonNull(rejectionHandler, "rejectionHandler must not be null");
		return this;
	}

	/**
	 * Selects manual mode, for tests and virtual time: no thread is started, and time moves only when
	 * the owner calls {@link TimingWheelScheduler#runDueTasks()}, which processes every tick up to the
	 * time source's current time. Advance a fake {@link TimeSource}, then call {@code runDueTasks()}.
	 * Default: off (a daemon timer thread drives the wheel).
	 * @return this builder
	 */
	public TimingWheelSchedulerBuilder manual() {
		this.manual = true;
		return this;
	}

	/**
	 * Builds the scheduler. Its tick 0 is the time source's time now. In thread mode the timer thread
	 * starts with the first {@code schedule} call, so a scheduler that is never used costs no thread.
	 * @return a new scheduler
	 */
	public TimingWheelScheduler build() {
		return new TimingWheelScheduler(this);
	}

	/** Rounds up to a power of two; {@code value} is between 1 and {@link #MAX_WHEEL_SIZE}. */
	static int roundedWheelSize(int value) {
		int highest = Integer.highestOneBit(value);
		return (highest == value) ? value : highest << 1;
	}

}
