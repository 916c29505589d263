package dev.retrykit.spi;

/**
 * Where the engine reads time: a monotonic clock for deadlines, delays and event times, and a wall
 * clock that turns event times into timestamps when the events are read. On {@link #SYSTEM}, events
 * are stamped by {@link #coarseNanoTime()}, a coarse copy of {@link System#nanoTime()} that a daemon
 * thread keeps to the millisecond while it is read (a field read instead of a clock read); any other
 * time source stamps them with its own {@link #nanoTime()}.
 *
 * <p>Injected into templates, circuit breakers and timers so that tests run in virtual time.
 * Implementations must be thread-safe.
 */
public interface TimeSource {

	/** The system time source: {@link System#nanoTime()} and {@link System#currentTimeMillis()}. */
	TimeSource SYSTEM = new TimeSource() {
		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public long coarseNanoTime() {
			return CoarseClock.SYSTEM.nanoTime();
		}

		@Override
		public long currentTimeMillis() {
			return System.currentTimeMillis();
		}

		@Override
		public String toString() {
			return "TimeSource.SYSTEM";
		}
	};

	/**
	 * A monotonic time in nanoseconds with an arbitrary origin, as {@link System#nanoTime()}.
	 * @return the current monotonic time
	 */
	long nanoTime();

	/**
	 * A monotonic time in nanoseconds on the same origin as {@link #nanoTime()}, for readers that only
	 * need it to about a millisecond: event stamps, and the 100 ms slots a ratio budget counts calls in.
	 * Never ahead of {@link #nanoTime()}, and never moving back. On {@link #SYSTEM} it is a field that a
	 * daemon thread, {@code retrykit-clock}, keeps to the millisecond while the clock is read, and that
	 * lags by a millisecond or so (more only when the machine does not schedule that thread); the thread
	 * ends after about a second without a reading. By default, {@link #nanoTime()} itself, so a virtual
	 * clock in tests needs nothing more.
	 * @return the current monotonic time, to about a millisecond
	 */
	default long coarseNanoTime() {
		return nanoTime();
	}

	/**
	 * The wall-clock time in epoch milliseconds, read only when recent events are read: an event's
	 * timestamp is this time less the event's age on the monotonic clock.
	 * @return the current wall-clock time
	 */
	long currentTimeMillis();

}
