package dev.retrykit.scheduler;

import dev.retrykit.spi.TimeSource;

/**
 * Converts the time source's nanoseconds into wheel ticks. Tick {@code k} begins {@code k × tick}
 * after the origin (the time source's time when the scheduler was built). Immutable and thread-safe.
 */
final class TickClock {

	private final TimeSource timeSource;

	private final long origin;

	private final long tickNanos;

	TickClock(TimeSource timeSource, long tickNanos) {
		this.timeSource = timeSource;
		this.tickNanos = tickNanos;
		this.origin = timeSource.nanoTime();
	}

	TimeSource timeSource() {
		return this.timeSource;
	}

	long tickNanos() {
		return this.tickNanos;
	}

	/** @return the last tick that has begun; processing up to it never fires a task early */
	long currentTick() {
		return Math.floorDiv(elapsed(), this.tickNanos);
	}

	/**
	 * @param delayNanos the delay from now; zero or less means now
	 * @return the first tick at or after now + delay, saturating instead of overflowing
	 */
	long deadlineTick(long delayNanos) {
		return deadlineTick(this.timeSource.nanoTime(), delayNanos);
	}

	/**
	 * @param nowNanos a reading of the time source
	 * @param delayNanos the delay from that reading; zero or less means then
	 * @return the first tick at or after {@code nowNanos} + delay, saturating instead of overflowing
	 */
	long deadlineTick(long nowNanos, long delayNanos) {
		long now = nowNanos - this.origin;
		long deadline = now + Math.max(0, delayNanos);
		if (deadline < now) {
			deadline = Long.MAX_VALUE;
		}
		long ticks = Math.floorDiv(deadline, this.tickNanos);
		return (ticks * this.tickNanos < deadline) ? ticks + 1 : ticks;
	}

	/** @return the nanoseconds from now until {@code tick} begins, zero or less if it has begun */
	long nanosUntil(long tick) {
		return tick * this.tickNanos - elapsed();
	}

	private long elapsed() {
		return this.timeSource.nanoTime() - this.origin;
	}

}
