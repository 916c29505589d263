package dev.retrykit.scheduler;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import dev.retrykit.spi.AbandonableTask;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.ScheduledTask;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link RetryScheduler}: a hashed timing wheel driven by one daemon timer thread, which
 * hands every due task to an executor and never runs a task itself.
 *
 * <p>{@link #schedule} is O(1) and lock-free: it allocates one node (the returned handle) and pushes it
 * onto a lock-free stack; the thread that drives the wheel moves new nodes into their buckets on each
 * tick, so buckets are never shared. {@link ScheduledTask#cancel()} is O(1): a CAS on the node's state,
 * which drops the task at once; the node (32 bytes) is unlinked when the timer next passes it, or on the timer's
 * next pass once cancelled nodes are half of those in the wheel (a mass cancellation). A task fires on
 * the first tick at or after its deadline: never early, at most about one tick late while the timer
 * keeps up; a task scheduled for a tick already processed fires on the timer's next pass.
 * Delays longer than one rotation ({@code tick × wheelSize}) wait in their bucket for later rotations.
 *
 * <p>Two modes, chosen on the {@linkplain #builder() builder}:
 * <ul>
 * <li>thread mode (default): one daemon thread, started by the first {@code schedule} call, parks
 * until the next tick and catches up on ticks it missed (after a GC pause, say);
 * <li>manual mode: no thread; time moves only when the owner calls {@link #runDueTasks()}, which
 * processes every tick up to the time source's current time: advance a fake {@link TimeSource} and
 * call it, no sleeping.
 * </ul>
 *
 * <p>Thread-safe. {@link #stop()} (or {@link #close()}) ends it; then {@code schedule} throws
 * {@link RejectedExecutionException}. A task the executor refuses (whatever it throws, an
 * {@link Error} included) is counted and given to the {@link RejectedTaskHandler}, never dropped
 * silently, and the timer goes on. A pass of the timer thread that throws is counted
 * ({@link #timerFailureCount()}) and retried a tick later; if the thread cannot start, or its passes
 * keep failing, the scheduler stops itself: the tasks still waiting go to the handler and
 * {@code schedule} throws with the cause.
 */
public final class TimingWheelScheduler implements RetryScheduler, AutoCloseable {

	private static final int NEW = 0;
	private static final int STARTED = 1;
	private static final int STOPPED = 2;

	private static final System.Logger LOGGER = System.getLogger(TimingWheelScheduler.class.getName());

	private final TickClock clock;
	private final int wheelSize;
	private final TaskHandoff handoff;
	private final @Nullable Thread worker;

	private final IncomingStack incoming;
	private final AtomicInteger lifecycle = new AtomicInteger(NEW);
	/** Every schedule call that got past the stopped check; the pending count is derived from it. */
	private final LongAdder scheduled = new LongAdder();

	/** The tasks given back by stop(), and how new ones are refused after it. */
	private final StoppedTasks stopped = new StoppedTasks();
	private final LongAdder cancelled = new LongAdder();
	/** Passes of the timer thread that threw (not tasks: the hand-off contains those). */
	private final LongAdder timerFailures = new LongAdder();

	/** Held by whichever thread drives the wheel: the worker, or the caller of runDueTasks(). */
	private final Object driveLock = new Object();
	private final TimingWheel wheel;
	private boolean driving;
	private final Predicate<WheelTimeout> fireFunction = this::fire;

	TimingWheelScheduler(TimingWheelSchedulerBuilder builder) {
		this.clock = new TickClock(builder.timeSource, builder.tick.toNanos());
		this.incoming = new IncomingStack(this, this.clock);
		this.wheelSize = TimingWheelSchedulerBuilder.roundedWheelSize(builder.wheelSize);
		this.handoff = new TaskHandoff(builder.executor, builder.rejectionHandler);
		this.wheel = new TimingWheel(this.wheelSize);
		this.worker = builder.manual ? null : newWorker(builder);
	}

	/**
	 * Starts a builder. Defaults: tick 10 ms, 512 buckets, {@link java.util.concurrent.ForkJoinPool#commonPool()},
	 * {@link TimeSource#SYSTEM}, thread name {@code retrykit-timer}, rejections logged, thread mode.
	 * @return a new builder
	 */
	public static TimingWheelSchedulerBuilder builder() {
		return new TimingWheelSchedulerBuilder();
	}

	/**
	 * Schedules a task; O(1), lock-free, one allocation. A delay of zero or less makes it due at once: it
	 * fires on the timer's next pass (within a tick), never inline.
	 * In thread mode the first call starts the timer thread.
	 * @throws RejectedExecutionException if the scheduler has been stopped
	 */
	@Override
	public ScheduledTask schedule(Runnable task, long delay, TimeUnit unit) {
		Objects.requireNonNull(task, "task must not be null");
		Objects.requireNonNull(unit, "unit must not be null");
		return enqueue(task, this.clock.deadlineTick(unit.toNanos(delay)));
	}

	/**
	 * Schedules a task at least {@code delayNanos} from now without reading the clock: on the system
	 * time source, in thread mode, the delay counts from the timer's next pass (within a tick), whose
	 * one clock reading serves every task scheduled since the pass before, so the task may fire up to a
	 * tick later than {@link #schedule}'s would. Otherwise (virtual time, which does not move by itself
	 * between this call and that pass; manual mode, whose passes come when called) it reads the clock
	 * now, as {@link #schedule} does. retrykit's async engine schedules its retries so: a clock reading
	 * costs about 25 ns on a virtual machine, a fifth of a pending retry's cost
	 * ({@code PendingRetriesScale} in the benchmarks).
	 * @param task the task
	 * @param delayNanos the least delay, in nanoseconds
	 * @return a handle that cancels the task
	 * @throws NullPointerException if {@code task} is {@code null}
	 * @throws RejectedExecutionException if the scheduler has been stopped
	 */
	public ScheduledTask scheduleFromNextPass(Runnable task, long delayNanos) {
		Objects.requireNonNull(task, "task must not be null");
		if (timeSource() != TimeSource.SYSTEM || isManual()) {
			return enqueue(task, this.clock.deadlineTick(delayNanos));
		}
		startIfNeeded();
		return push(WheelTimeout.fromNextPass(this, task, delayNanos));
	}

	private ScheduledTask enqueue(Runnable task, long deadlineTick) {
		startIfNeeded();
		return push(new WheelTimeout(this, task, deadlineTick));
	}

	private ScheduledTask push(WheelTimeout node) {
		this.scheduled.increment();
		if (!this.incoming.push(node)) {
			this.scheduled.decrement();
			throw this.stopped.rejection();
		}
		return node;
	}

	/**
	 * Hands a task to the executor now, as a due task is handed (counted as fired; a refusal goes to the
	 * {@link RejectedTaskHandler}): hedging starts each due copy so, one copy's slow start delaying no other.
	 * @param task the task
	 * @throws NullPointerException if {@code task} is {@code null}
	 * @throws RejectedExecutionException if the scheduler has been stopped
	 */
	public void execute(Runnable task) {
		Objects.requireNonNull(task, "task must not be null");
		if (isStopped()) {
			throw this.stopped.rejection();
		}
		this.handoff.handOff(task);
	}

	/** {@return the clock this scheduler keeps its time with} */
	public TimeSource timeSource() {
		return this.clock.timeSource();
	}

	/**
	 * Manual mode only: processes every tick up to the time source's current time, in order, handing
	 * each due task to the executor (with a direct executor, tasks run inside this call). A task
	 * scheduled meanwhile for a tick this call has yet to process fires within the same call; one due on
	 * a tick already processed fires on the next call, even if the clock has not moved (so a task that
	 * reschedules itself with no delay cannot keep a call going). After {@link #stop()} it does nothing.
	 * Thread-safe: concurrent callers take turns.
	 * @return how many tasks this call handed to the executor (including any it rejected)
	 * @throws IllegalStateException in thread mode, or when called from a task this method is running
	 */
	public long runDueTasks() {
		if (this.worker != null) {
			throw new IllegalStateException("runDueTasks() is for a scheduler built in manual mode; "
					+ "this one is driven by its timer thread");
		}
		synchronized (this.driveLock) {
			if (this.driving) {
				throw new IllegalStateException("runDueTasks() called from a task that it is running");
			}
			this.driving = true;
			try {
				long before = this.handoff.firedCount();
				processUpTo(this.clock.currentTick());
				return this.handoff.firedCount() - before;
			}
			finally {
				this.driving = false;
			}
		}
	}

	/**
	 * Stops the scheduler: the timer thread ends (this call waits for it, unless made from a task it is
	 * running), later {@code schedule} calls throw {@link RejectedExecutionException}, and tasks that
	 * had neither fired nor been cancelled are returned instead of run; their handles then report
	 * neither cancelled nor expired. Each of them that is an {@link AbandonableTask} is
	 * {@linkplain AbandonableTask#abandon abandoned} first, on this thread, so that an async call
	 * waiting on it completes. Idempotent: later calls return an empty list.
	 * @return the tasks that will not run, by deadline (unmodifiable)
	 */
	public List<Runnable> stop() {
		if (this.lifecycle.getAndSet(STOPPED) == STOPPED) {
			return List.of();
		}
		if (this.worker != null) {
			LockSupport.unpark(this.worker);
		}
		List<WheelTimeout> left = drainWaiting();
		if (this.worker != null && this.worker != Thread.currentThread()) {
			StoppedTasks.joinUninterruptibly(this.worker);
		}
		List<Runnable> tasks = this.stopped.claim(left);
		// Whatever waits on a task that will not run (an async call's future, a failback task) ends now.
		RejectedExecutionException refusal = this.stopped.rejection();
		for (Runnable task : tasks) {
			AbandonableTask.abandonIfAbandonable(task, refusal);
		}
		return Collections.unmodifiableList(tasks);
	}

	/** Same as {@link #stop()}, discarding the tasks that did not run. */
	@Override
	public void close() {
		stop();
	}

	/**
	 * {@return whether {@link #stop()} has been called, or the timer thread could not start or go on (its
	 * tasks were then handed to the {@link RejectedTaskHandler}, and {@code schedule} throws with the
	 * cause)}
	 */
	public boolean isStopped() {
		return this.lifecycle.get() == STOPPED;
	}

	/**
	 * {@return tasks scheduled that have not yet fired, been cancelled, or been returned by stop: exact
	 * when no call is in progress, and never negative}
	 */
	public long pendingCount() {
		// Ends first: a task is counted as scheduled before it can be counted as fired or cancelled.
		long ended = this.handoff.firedCount() + this.cancelled.sum() + this.stopped.returnedCount();
		return this.scheduled.sum() - ended;
	}

	/** {@return tasks handed to the executor so far, including those it rejected} */
	public long firedCount() {
		return this.handoff.firedCount();
	}

	/** {@return tasks cancelled before they fired} */
	public long cancelledCount() {
		return this.cancelled.sum();
	}

	/** {@return due tasks the executor refused; each was passed to the {@link RejectedTaskHandler}} */
	public long rejectedCount() {
		return this.handoff.rejectedCount();
	}

	/**
	 * {@return how many passes of the timer thread threw and were contained (an {@link Error} out of the
	 * time source, or memory running out); tasks that fail are counted in {@link #rejectedCount()}}
	 */
	public long timerFailureCount() {
		return this.timerFailures.sum();
	}

	/** @return nodes linked in the wheel's buckets, cancelled ones not yet unlinked included (for tests) */
	long linkedNodes() {
		synchronized (this.driveLock) {
			return this.wheel.linked();
		}
	}

	/** {@return the tick} */
	public Duration tick() {
		return Duration.ofNanos(this.clock.tickNanos());
	}

	/** {@return the number of buckets, the configured size rounded up to a power of two} */
	public int wheelSize() {
		return this.wheelSize;
	}

	/** {@return whether this scheduler is in manual mode (driven by {@link #runDueTasks()})} */
	public boolean isManual() {
		return this.worker == null;
	}

	@Override
	public String toString() {
		String state = switch (this.lifecycle.get()) {
			case NEW -> "new";
			case STARTED -> "running";
			default -> this.stopped.failed() ? "failed" : "stopped";
		};
		return "TimingWheelScheduler[tick=" + tick() + ", wheelSize=" + this.wheelSize
				+ ", mode=" + (isManual() ? "manual" : "thread") + ", state=" + state
				+ ", pending=" + pendingCount() + ", fired=" + firedCount() + ", cancelled=" + cancelledCount()
				+ ", rejected=" + rejectedCount() + "]";
	}

	void onCancelled() {
		this.cancelled.increment();
	}

	private Thread newWorker(TimingWheelSchedulerBuilder builder) {
		Thread thread = builder.threadFactory.apply(new TimerThreadLoop(this));
		thread.setName(builder.threadName);
		thread.setDaemon(true);
		return thread;
	}

	private void startIfNeeded() {
		int state = this.lifecycle.get();
		if (state == STOPPED) {
			throw this.stopped.rejection();
		}
		if (state == NEW && this.worker != null && this.lifecycle.compareAndSet(NEW, STARTED)) {
			try {
				this.worker.start();
			}
			catch (Throwable ex) {
				// Typically "OutOfMemoryError: unable to create native thread". Accepting work that no
				// thread will ever fire would hang every caller; refuse it, now and later, with the cause.
				fail(ex);
				throw this.stopped.rejection();
			}
		}
	}

	/** The timer thread's first pass: the ticks between build() and the first schedule() had nothing to do. */
	void skipTicksBeforeStart() {
		synchronized (this.driveLock) {
			this.wheel.skipIfEmpty(this.clock.currentTick() - 1);
		}
	}

	/**
	 * One pass of the timer thread: processes every tick that has begun.
	 * @return the nanoseconds until the next tick begins (zero or less: at once)
	 */
	long drivePass() {
		long nextTick;
		synchronized (this.driveLock) {
			processUpTo(this.clock.currentTick());
			nextTick = this.wheel.nextTick();
		}
		return this.clock.nanosUntil(nextTick);
	}

	/** Counts a pass of the timer thread that threw. */
	void countTimerFailure() {
		this.timerFailures.increment();
	}

	/** @return the tick in nanoseconds */
	long tickNanos() {
		return this.clock.tickNanos();
	}

	/**
	 * The timer thread cannot start or go on: marks the scheduler stopped, so that {@code schedule}
	 * rejects with the cause, and hands every task still waiting to the {@link RejectedTaskHandler}, so
	 * that none is left to wait forever.
	 */
	void fail(Throwable cause) {
		this.stopped.failedWith(cause);
		if (this.lifecycle.getAndSet(STOPPED) == STOPPED) {
			return;
		}
		List<Runnable> tasks = this.stopped.claim(drainWaiting());
		RejectedExecutionException reason = new RejectedExecutionException(
				"TimingWheelScheduler's timer thread failed (" + cause + "); the task will not run", cause);
		for (Runnable task : tasks) {
			this.handoff.handBack(task, reason);
		}
		LOGGER.log(System.Logger.Level.ERROR, "Timer thread of " + this + " gave up; " + tasks.size()
				+ " task(s) were handed to the RejectedTaskHandler, and new tasks are refused", cause);
	}

	/** Empties the wheel and closes the incoming stack, so that no node is linked or pushed any more. */
	private List<WheelTimeout> drainWaiting() {
		synchronized (this.driveLock) {
			List<WheelTimeout> left = this.wheel.drainAll();
			left.addAll(this.incoming.close());
			return left;
		}
	}

	/** Processes ticks up to {@code targetTick}; the caller holds the drive lock. */
	private void processUpTo(long targetTick) {
		long fastForwardFrom = Long.MIN_VALUE;
		// Taken before the loop too: a node scheduled for a tick already processed fires now, even when
		// no new tick has begun.
		if (!this.wheel.addAll(this.incoming.takeAll(), this.fireFunction)) {
			return;
		}
		while (this.lifecycle.get() != STOPPED && this.wheel.nextTick() <= targetTick) {
			if (!this.wheel.addAll(this.incoming.takeAll(), this.fireFunction)) {
				return;
			}
			if (this.wheel.skipIfEmpty(targetTick)) {
				return;
			}
			long tick = this.wheel.nextTick();
			if (targetTick - tick >= this.wheelSize && tick >= fastForwardFrom) {
				// Catching up over more than a rotation (virtual time, a long pause): skip idle ticks.
				this.wheel.fastForward(targetTick);
				fastForwardFrom = this.wheel.nextTick() + this.wheelSize;
			}
			else if (!this.wheel.expireNextTick(this.fireFunction)) {
				return;
			}
		}
		purgeIfMostlyCancelled();
	}

	/**
	 * Unlinks the cancelled nodes at once when they are at least half of the linked ones: after a mass
	 * cancellation the nodes are released within a tick instead of when the timer next passes their
	 * buckets (up to a rotation later).
	 */
	private void purgeIfMostlyCancelled() {
		long linked = this.wheel.linked();
		if (linked == 0) {
			return;
		}
		long cancelledLinked = this.cancelled.sum() - this.wheel.droppedCancelled();
		if (cancelledLinked > 0 && 2 * cancelledLinked >= linked) {
			this.wheel.purgeCancelled();
		}
	}

	/** Hands a due node's task to the executor; returns whether to go on (false once stopped). */
	private boolean fire(WheelTimeout node) {
		Runnable task = node.claim(WheelTimeout.EXPIRED);
		if (task != null) {
			this.handoff.handOff(task);
		}
		else {
			this.wheel.countDroppedCancelled();
		}
		return this.lifecycle.get() != STOPPED;
	}

}
