package dev.retrykit.internal;

import java.util.concurrent.RejectedExecutionException;

import dev.retrykit.spi.AbandonableTask;

/**
 * An async call's retry on the scheduler: it runs the call's next attempt when its delay has passed,
 * and ends the call when the scheduler stops before that ({@link AsyncRetry#abandon}). Kept apart from
 * the call, so that the future a caller holds is not a task anyone can run. Immutable; 16 bytes.
 */
final class NextAttempt implements AbandonableTask {

	private final AsyncRetry<?> call;

	NextAttempt(AsyncRetry<?> call) {
		this.call = call;
	}

	@Override
	public void run() {
		this.call.runNextAttempt();
	}

	@Override
	public void abandon(RejectedExecutionException reason) {
		this.call.abandon(reason);
	}

	@Override
	public String toString() {
		return "NextAttempt[" + this.call + "]";
	}

}
