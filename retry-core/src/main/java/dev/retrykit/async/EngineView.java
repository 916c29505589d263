package dev.retrykit.async;

import dev.retrykit.internal.NextPassScheduler;
import dev.retrykit.spi.ScheduledTask;

/** A timing wheel as retrykit's async engine schedules on it: from the timer's next pass. */
final class EngineView implements NextPassScheduler {

	private final TimingWheelScheduler wheel;

	EngineView(TimingWheelScheduler wheel) {
		this.wheel = wheel;
	}

	@Override
	public ScheduledTask scheduleFromNextPass(Runnable task, long delayNanos) {
		return this.wheel.scheduleFromNextPass(task, delayNanos);
	}

}
