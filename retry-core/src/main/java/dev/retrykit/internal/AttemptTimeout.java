package dev.retrykit.internal;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

import dev.retrykit.spi.AbandonableTask;
import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * An async attempt in flight with a timeout: the scheduler's task that times the attempt out when it
 * runs, and ends the call when the scheduler stops before its time ({@link AsyncRetry#abandonAttempt}),
 * so that an attempt that never completes leaves no call waiting; and, as any {@link AttemptOutcome},
 * what the attempt's stage completes into. Thread-safe; 40 bytes.
 *
 * @param <T> the result type
 */
final class AttemptTimeout<T> extends AttemptOutcome<T> implements AbandonableTask {

	final long timeoutNanos;

	/** The scheduler's handle on this task, once {@code schedule} has returned it. */
	private volatile @Nullable ScheduledTask timer;

	AttemptTimeout(AsyncRetry<T> call, CompletionStage<T> stage, int id, long timeoutNanos) {
		super(call, stage, id);
		this.timeoutNanos = timeoutNanos;
	}

	void timer(ScheduledTask timer) {
		this.timer = timer;
	}

	/**
	 * Cancels the timer. One whose handle is not recorded yet (the outcome was taken while
	 * {@code schedule} was returning) runs at its time and finds the outcome taken.
	 */
	@Override
	void stopTimer() {
		ScheduledTask timer = this.timer;
		if (timer != null) {
			timer.cancel();
		}
	}

	@Override
	public void run() {
		this.call.timedOut(this);
	}

	@Override
	public void abandon(RejectedExecutionException reason) {
		this.call.abandonAttempt(this.id, this.stage, reason);
	}

}
