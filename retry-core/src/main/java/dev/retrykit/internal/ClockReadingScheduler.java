package dev.retrykit.internal;

import java.util.Objects;
import java.util.function.Function;

import dev.retrykit.spi.ScheduledTask;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * A scheduler that takes the caller's reading of its clock, so that an async retry reads the clock
 * once for both its event and its delay (see {@code AsyncRetryBenchmark}). retrykit's timing wheel
 * ({@code dev.retrykit.async.TimingWheelScheduler}) offers one through {@link #of}; it is the
 * engine's, not public API, and the engine never names the async package, so the packages form no
 * cycle. Thread-safe.
 */
public interface ClockReadingScheduler {

	/** @return the clock the scheduler keeps its time with */
	TimeSource timeSource();

	/**
	 * Schedules a task {@code delayNanos} after {@code nowNanos}, a reading of {@link #timeSource()}.
	 * @param task the task
	 * @param nowNanos the time source's {@code nanoTime()}, just read by the caller
	 * @param delayNanos the delay from {@code nowNanos}
	 * @return a handle that cancels the task
	 * @throws java.util.concurrent.RejectedExecutionException if the scheduler is stopped
	 */
	ScheduledTask scheduleFrom(Runnable task, long nowNanos, long delayNanos);

	/**
	 * @param scheduler any scheduler
	 * @return its clock-reading view, or {@code null} when it has none
	 */
	static @Nullable ClockReadingScheduler of(Object scheduler) {
		return ClockReadingRegistry.views.apply(Objects.requireNonNull(scheduler, "scheduler must not be null"));
	}

	/**
	 * Called once, by the timing wheel class as it initializes (before any wheel exists).
	 * @param views the wheel's accessor: a view for a wheel, {@code null} for anything else
	 */
	static void register(Function<Object, @Nullable ClockReadingScheduler> views) {
		ClockReadingRegistry.views = Objects.requireNonNull(views, "views must not be null");
	}

}
