package dev.retrykit.scheduler;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * A stopped {@link TimingWheelScheduler}'s side: the tasks it gives back instead of running them
 * (claimed from their nodes, by deadline, and counted), why it stopped when its timer thread failed,
 * and the exception that refuses new tasks after it. Thread-safe.
 */
final class StoppedTasks {

	/** Tasks handed back by stop() or by the timer thread's failure. */
	private final AtomicLong returned = new AtomicLong();

	/** Why the timer thread could not start or go on; set before the scheduler is marked stopped. */
	private volatile @Nullable Throwable failure;

	/** Records why the timer thread could not start or go on. */
	void failedWith(Throwable cause) {
		this.failure = cause;
	}

	/** {@return whether the scheduler stopped because its timer thread failed} */
	boolean failed() {
		return this.failure != null;
	}

	/** {@return the tasks given back so far} */
	long returnedCount() {
		return this.returned.get();
	}

	/** Takes the tasks of the nodes still pending, by deadline, and counts them as given back. */
	List<Runnable> claim(List<WheelTimeout> nodes) {
		nodes.sort(Comparator.comparingLong(WheelTimeout::deadlineTick));
		List<Runnable> tasks = new ArrayList<>(nodes.size());
		for (WheelTimeout node : nodes) {
			Runnable task = node.claim(WheelTimeout.STOPPED);
			if (task != null) {
				tasks.add(task);
			}
		}
		this.returned.addAndGet(tasks.size());
		return tasks;
	}

	/** {@return the exception that refuses a task after the stop, naming the timer thread's failure if any} */
	RejectedExecutionException rejection() {
		Throwable cause = this.failure;
		if (cause != null) {
			return new RejectedExecutionException("TimingWheelScheduler's timer thread failed (" + cause
					+ "); it accepts no new tasks", cause);
		}
		return new RejectedExecutionException("TimingWheelScheduler has been stopped; it accepts no new tasks");
	}

	/** Waits for the timer thread to end, keeping an interrupt for after. */
	static void joinUninterruptibly(Thread thread) {
		boolean interrupted = false;
		while (true) {
			try {
				thread.join();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
