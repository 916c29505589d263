package dev.retrykit.internal;

import java.util.concurrent.RejectedExecutionException;

import dev.retrykit.spi.AbandonableTask;

/**
 * An async attempt's timeout on the scheduler: it times the attempt out when it runs, and ends the call
 * when the scheduler stops before its time ({@link AsyncRetry#abandonAttempt}), so that an attempt that
 * never completes leaves no call waiting. Immutable.
 */
final class AttemptTimeout implements AbandonableTask {

	private final AsyncRetry<?> call;

	private final int id;

	private final long timeoutNanos;

	AttemptTimeout(AsyncRetry<?> call, int id, long timeoutNanos) {
		this.call = call;
		this.id = id;
		this.timeoutNanos = timeoutNanos;
	}

	@Override
	public void run() {
		this.call.timedOut(this.id, this.timeoutNanos);
	}

	@Override
	public void abandon(RejectedExecutionException reason) {
		this.call.abandonAttempt(this.id, reason);
	}

}
