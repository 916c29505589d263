package dev.retrykit.async;

import dev.retrykit.internal.ClockReadingScheduler;
import dev.retrykit.spi.ScheduledTask;
import dev.retrykit.spi.TimeSource;

/** A timing wheel as retrykit's async engine schedules on it: from a clock reading, or from the timer's next pass. */
final class EngineView implements ClockReadingScheduler {

	private final TimingWheelScheduler wheel;

	EngineView(TimingWheelScheduler wheel) {
		this.wheel = wheel;
	}

	@Override
	public TimeSource timeSource() {
		return this.wheel.timeSource();
	}

	@Override
	public ScheduledTask scheduleFrom(Runnable task, long nowNanos, long delayNanos) {
		return this.wheel.scheduleFrom(task, nowNanos, delayNanos);
	}

	@Override
	public ScheduledTask scheduleFromNextPass(Runnable task, long delayNanos) {
		return this.wheel.scheduleFromNextPass(task, delayNanos);
	}

}
