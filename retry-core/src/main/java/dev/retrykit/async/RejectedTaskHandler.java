package dev.retrykit.async;

import java.lang.System.Logger.Level;
import java.util.concurrent.RejectedExecutionException;

/**
 * Told about a due task that the {@link TimingWheelScheduler}'s executor refused (it threw from
 * {@code execute}, typically a {@link RejectedExecutionException} from a saturated or shut-down pool,
 * or an {@link Error} such as {@code OutOfMemoryError: unable to create native thread}), and about the
 * tasks still waiting when the timer thread could not start or go on (see
 * {@link TimingWheelScheduler#isStopped()}).
 *
 * <p>The scheduler never drops such a task silently: it counts it ({@link
 * TimingWheelScheduler#rejectedCount()}) and passes it here. A handler may run the task elsewhere,
 * complete a future exceptionally, or record the failure. It is called on the thread that drives the
 * wheel, so it must be quick and must not run user code inline; an exception or error it throws is caught
 * and logged so that the timer keeps going.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface RejectedTaskHandler {

	/**
	 * The default handler: logs the rejection at {@code WARNING} through {@link System.Logger}, with
	 * the task and the executor's exception.
	 */
	RejectedTaskHandler LOG = new RejectedTaskHandler() {
		@Override
		public void rejected(Runnable task, RejectedExecutionException cause) {
			System.getLogger(TimingWheelScheduler.class.getName())
				.log(Level.WARNING, "Executor rejected a due retry task, it will not run: " + task, cause);
		}

		@Override
		public String toString() {
			return "RejectedTaskHandler.LOG";
		}
	};

	/**
	 * Called once for each due task the executor refused.
	 * @param task the task that did not run
	 * @param cause what the executor threw; any other exception or error is wrapped in a
	 * {@code RejectedExecutionException} whose cause it is, as is the timer's own failure
	 */
	void rejected(Runnable task, RejectedExecutionException cause);

}
