package dev.retrykit.internal;

import java.util.Objects;
import java.util.function.Function;

import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * A scheduler that can count a delay from its timer's next pass, so that an async retry is scheduled
 * without a clock read on the calling thread (a clock read costs about 25 ns on a virtual machine, a
 * fifth of a pending retry's cost). retrykit's timing wheel
 * ({@code dev.retrykit.async.TimingWheelScheduler}) offers one through {@link #of}; it is the
 * engine's, not public API, and the engine never names the async package, so the packages form no
 * cycle. Thread-safe.
 */
public interface NextPassScheduler {

	/**
	 * Schedules a task at least {@code delayNanos} from now without reading the clock on the calling
	 * thread: on a real clock the delay counts from the timer's next pass, so the task fires up to a
	 * tick later than a {@code schedule} would; on virtual time the scheduler reads its clock now.
	 * @param task the task
	 * @param delayNanos the delay
	 * @return a handle that cancels the task
	 * @throws java.util.concurrent.RejectedExecutionException if the scheduler is stopped
	 */
	ScheduledTask scheduleFromNextPass(Runnable task, long delayNanos);

	/**
	 * {@return its next-pass view, or {@code null} when it has none}
	 * @param scheduler any scheduler
	 */
	static @Nullable NextPassScheduler of(Object scheduler) {
		return NextPassRegistry.views.apply(Objects.requireNonNull(scheduler, "scheduler must not be null"));
	}

	/**
	 * Called once, by the timing wheel class as it initializes (before any wheel exists).
	 * @param views the wheel's accessor: a view for a wheel, {@code null} for anything else
	 */
	static void register(Function<Object, @Nullable NextPassScheduler> views) {
		NextPassRegistry.views = Objects.requireNonNull(views, "views must not be null");
	}

}
