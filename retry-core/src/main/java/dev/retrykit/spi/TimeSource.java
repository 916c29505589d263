package dev.retrykit.spi;

/**
 * Where the engine reads time: a monotonic clock for deadlines, delays and event times, and a wall
 * clock that turns event times into timestamps when the events are read. On {@link #SYSTEM}, events
 * are stamped by a coarse copy of {@link System#nanoTime()} that a daemon thread keeps to the
 * millisecond while events are recorded (a field read instead of a clock read); any other time
 * source stamps them with its own {@link #nanoTime()}.
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
	 * The wall-clock time in epoch milliseconds, read only when recent events are read: an event's
	 * timestamp is this time less the event's age on the monotonic clock.
	 * @return the current wall-clock time
	 */
	long currentTimeMillis();

}
