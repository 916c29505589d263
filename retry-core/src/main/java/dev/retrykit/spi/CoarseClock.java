package dev.retrykit.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The coarse monotonic clock of {@link TimeSource#SYSTEM} ({@link TimeSource#coarseNanoTime()}), which
 * stamps the events of instances on the system time source and finds a ratio budget's slot: a reading costs a
 * few field reads instead of a {@link System#nanoTime()} call (about 25 ns on a virtual machine, three
 * times the rest of a retried call's bookkeeping), and is at most about a tick (a millisecond) behind.
 * Deadlines and delays never read it; they read {@link TimeSource#nanoTime()}.
 *
 * <p>A daemon thread, {@code retrykit-clock}, stores the time once per tick while the clock is read.
 * After {@link #SYSTEM_IDLE_TICKS} ticks (about a second) without a reading, it ends, so an idle
 * application keeps no thread and no wake-ups. The next reading then reads the source itself and
 * starts the thread again. Readings are monotonic: the stored time only moves forward. If the thread
 * cannot be started, every reading reads the source (the clock is then exact, as slow as the source).
 *
 * <p>Thread-safe.
 */
final class CoarseClock {

	/** How often the thread stores the time while the clock is read. */
	static final long TICK_NANOS = 1_000_000;

	/** Ticks without a reading after which the thread ends: about a second. */
	static final int SYSTEM_IDLE_TICKS = 1000;

	/** The clock of the system time source. */
	static final CoarseClock SYSTEM = new CoarseClock(System::nanoTime, CoarseClock::startDaemon, SYSTEM_IDLE_TICKS);

	private static final int IDLE = 0;

	private static final int TICKING = 1;

	/** The thread could not be started: every reading reads the source. */
	private static final int EXACT = 2;

	private static final VarHandle STATE = handle("state", int.class);

	private static final VarHandle NOW = handle("now", long.class);

	private final LongSupplier source;

	private final Consumer<Runnable> starter;

	private final int idleTicks;

	private volatile int state = IDLE;

	private volatile long now;

	/** Set by a reading, cleared by the ticker: whether the clock was read since the ticker last looked. */
	private volatile boolean read;

	/** The ticker's count of ticks without a reading; only the ticking thread touches it. */
	private int unreadTicks;

	/**
	 * @param source the exact monotonic clock
	 * @param starter starts the ticker: runs the given loop on a thread of its own
	 * @param idleTicks ticks without a reading after which the ticker ends
	 */
	CoarseClock(LongSupplier source, Consumer<Runnable> starter, int idleTicks) {
		this.source = source;
		this.starter = starter;
		this.idleTicks = idleTicks;
		this.now = source.getAsLong();
	}

	/** @return the monotonic time in nanoseconds, at most about a tick behind the source */
	long nanoTime() {
		if (this.state == TICKING) {
			if (!this.read) {
				this.read = true;
			}
			return this.now;
		}
		return readSource();
	}

	/** The clock is idle (or exact): read the source, store it, and start the ticker if it is idle. */
	private long readSource() {
		long time = advance(this.source.getAsLong());
		if (this.state == IDLE && STATE.compareAndSet(this, IDLE, TICKING)) {
			this.read = true;
			try {
				this.starter.accept(this::run);
			}
			catch (Throwable ex) {
				// No thread: stay exact rather than freeze the stored time.
				this.state = EXACT;
			}
		}
		return time;
	}

	/** Moves the stored time forward to {@code time}, never back; returns the stored time. */
	private long advance(long time) {
		long stored = this.now;
		while (time > stored) {
			if (NOW.compareAndSet(this, stored, time)) {
				return time;
			}
			stored = this.now;
		}
		return stored;
	}

	/** The ticker's loop: park a tick, store the time, until the clock goes unread. */
	private void run() {
		boolean ended = false;
		try {
			do {
				LockSupport.parkNanos(TICK_NANOS);
			}
			while (tick());
			ended = true;
		}
		finally {
			if (!ended) {
				// Ended by anything but going unread: let the next reading start another ticker.
				this.state = IDLE;
			}
		}
	}

	/**
	 * One tick: stores the time and tells whether to go on.
	 * @return {@code false} once the clock has gone unread for the idle ticks; the state is then idle
	 */
	boolean tick() {
		advance(this.source.getAsLong());
		if (this.read) {
			this.read = false;
			this.unreadTicks = 0;
			return true;
		}
		if (++this.unreadTicks < this.idleTicks) {
			return true;
		}
		this.unreadTicks = 0;
		this.state = IDLE;
		// A reading that saw TICKING just before may have marked the clock read since: tick for it,
		// unless a later reading has already started another ticker.
		return this.read && STATE.compareAndSet(this, IDLE, TICKING);
	}

	/** @return whether a ticker is running (or starting) */
	boolean isTicking() {
		return this.state == TICKING;
	}

	private static VarHandle handle(String name, Class<?> type) {
		try {
			return MethodHandles.lookup().findVarHandle(CoarseClock.class, name, type);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private static void startDaemon(Runnable loop) {
		Thread thread = new Thread(loop, "retrykit-clock");
		thread.setDaemon(true);
		thread.setContextClassLoader(null);
		thread.start();
	}

}
