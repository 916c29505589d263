package dev.retrykit;

import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.spi.RetryScheduler;

/**
 * The scheduler of templates built without one: a single timing wheel (tick 10ms, 512 buckets) shared
 * by every instance in the JVM, created on first use; its daemon thread starts on the first schedule.
 */
final class DefaultScheduler {

	private DefaultScheduler() {
	}

	/** @return the shared default scheduler */
	static RetryScheduler get() {
		return Holder.INSTANCE;
	}

	private static final class Holder {

		static final TimingWheelScheduler INSTANCE = TimingWheelScheduler.builder().build();

	}

}
