package dev.retrykit.scheduler;

import java.lang.System.Logger.Level;
import java.util.concurrent.RejectedExecutionException;

import dev.retrykit.spi.AbandonableTask;

/**
 * Told about a due task that the {@link TimingWheelScheduler}'s executor refused (it threw from
 * {@code execute}, typically a {@link RejectedExecutionException} from a saturated or shut-down pool,
 * or an {@link Error} such as {@code OutOfMemoryError: unable to create native thread}), and about the
 * tasks still waiting when the timer thread could not start or go on (see
 * {@link TimingWheelScheduler#isStopped()}).
 *
 * <p>The scheduler never drops such a task silently: it counts it ({@link
 * TimingWheelScheduler#rejectedCount()}) and passes it here. A handler may run the task elsewhere,
 * or end what waits on it ({@link AbandonableTask#abandonIfAbandonable}, as the default {@link #ABANDON}
 * does), and record the failure. It is called on the thread that drives the
 * wheel, so it must be quick and must not run user code inline; an exception or error it throws is caught
 * and logged so that the timer keeps going.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface RejectedTaskHandler {

	/**
	 * Logs the rejection at {@code WARNING} through {@link System.Logger}, with the task and the
	 * executor's exception, and does nothing else: an async call waiting on the task is left waiting.
	 * A handler that builds on it and does not run the task elsewhere should end such a call with
	 * {@link AbandonableTask#abandonIfAbandonable}, as {@link #ABANDON} (the default) does.
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
	 * The default handler: logs the rejection as {@link #LOG} does, then
	 * {@linkplain AbandonableTask#abandon abandons} the task when it is an {@link AbandonableTask}, so
	 * that what waits on it ends: an async call completes with a {@link RejectedExecutionException} that
	 * repeats the executor's, its last failure as cause, and a failback task ends as exhausted.
	 */
	RejectedTaskHandler ABANDON = new RejectedTaskHandler() {
		@Override
		public void rejected(Runnable task, RejectedExecutionException cause) {
			LOG.rejected(task, cause);
			AbandonableTask.abandonIfAbandonable(task, cause);
		}

		@Override
		public String toString() {
			return "RejectedTaskHandler.ABANDON";
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
