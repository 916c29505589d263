package dev.retrykit.internal;

import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryVetoedException;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * One failback task: its retry context and its pending schedule. Attempts run one at a time: the first
 * on the submitting thread, the others when the scheduler fires this entry.
 */
final class FailbackEntry implements Runnable {

	final FailbackEngine engine;

	final Object key;

	final Runnable task;

	final MutableRetryContext context;

	private final Instant submittedAt;

	private volatile @Nullable ScheduledTask scheduled;

	private volatile @Nullable Instant nextAttemptAt;

	private volatile boolean cancelled;

	private int attempts;

	/** How many times this entry was given to the scheduler; guarded by {@code this}. */
	private long schedules;

	FailbackEntry(FailbackEngine engine, Object key, Runnable task) {
		this.engine = engine;
		this.key = key;
		this.task = task;
		this.context = new MutableRetryContext(engine.runtime.name, null);
		this.submittedAt = engine.now();
	}

	boolean runFirst(boolean check) {
		RetryRuntime runtime = this.engine.runtime;
		if (!runtime.open(this.context)) {
			RetryVetoedException vetoed = new RetryVetoedException(
					"Failback task '" + this.key + "' of '" + runtime.name + "' was vetoed by a listener");
			runtime.close(this.context, vetoed);
			throw vetoed;
		}
		ThreadCounters block = runtime.counters.forCurrentThread();
		if (!runtime.acquireAttempt(this.context, block)) {
			if (check) {
				RuntimeException rejection = runtime.onCircuitRejection(this.context, block);
				runtime.close(this.context, rejection);
				throw rejection;
			}
			runtime.onRejectedAttempt(this.context, block);
			schedule(remainingOpenNanos());
			return false;
		}
		Throwable failure = attempt();
		if (failure == null) {
			runtime.onSuccess(this.context, block, null);
			return true;
		}
		long decision = runtime.onFailure(this.context, failure, null);
		if (check) {
			runtime.onStop(this.context, block, (decision < 0) ? decision : RetryRuntime.STOP_EXHAUSTED);
			runtime.close(this.context, failure);
			throw Sneaky.<RuntimeException>rethrow(failure);
		}
		after(decision, failure, block);
		return false;
	}

	/** A scheduled retry is due. */
	@Override
	public void run() {
		if (this.cancelled) {
			return;
		}
		RetryRuntime runtime = this.engine.runtime;
		ThreadCounters block = runtime.counters.forCurrentThread();
		if (!runtime.acquireAttempt(this.context, block)) {
			runtime.onRejectedAttempt(this.context, block);
			schedule(remainingOpenNanos());
			return;
		}
		Throwable failure = attempt();
		if (failure == null) {
			runtime.onSuccess(this.context, block, null);
			this.engine.succeeded(this);
			return;
		}
		after(runtime.onFailure(this.context, failure, null), failure, block);
	}

	private @Nullable Throwable attempt() {
		this.attempts++;
		ContextStack stack = ContextStack.get();
		this.context.setParent(stack.top());
		stack.push(this.context);
		try {
			this.task.run();
			return null;
		}
		catch (Throwable ex) {
			return ex;
		}
		finally {
			stack.pop();
		}
	}

	private void after(long decision, Throwable failure, ThreadCounters block) {
		if (this.cancelled) {
			return;
		}
		if (decision >= 0) {
			schedule(decision);
		}
		else if (decision == RetryRuntime.STOP_CIRCUIT_OPEN) {
			schedule(remainingOpenNanos());
		}
		else {
			stop(decision, failure, block);
		}
	}

	private void stop(long reason, Throwable failure, ThreadCounters block) {
		this.nextAttemptAt = null;
		this.engine.runtime.onStop(this.context, block, reason);
		this.engine.runtime.close(this.context, failure);
		this.engine.exhausted(this, failure);
	}

	private long remainingOpenNanos() {
		var breaker = this.engine.runtime.circuitBreaker;
		return (breaker != null) ? Math.max(1, breaker.getRemainingOpenNanos()) : 0;
	}

	private void schedule(long delayNanos) {
		this.nextAttemptAt = this.engine.now().plusNanos(delayNanos);
		long ticket;
		synchronized (this) {
			ticket = ++this.schedules;
		}
		// Pending before the scheduler has it: a retry due now may run, and end, before schedule returns.
		this.engine.queued(this, delayNanos, ticket == 1);
		ScheduledTask handle;
		try {
			handle = this.engine.scheduler.schedule(this, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			stop(RetryRuntime.STOP_EXHAUSTED, ex, this.engine.runtime.counters.forCurrentThread());
			return;
		}
		synchronized (this) {
			// That retry may also have scheduled the next one, whose handle cancel() must find.
			if (ticket == this.schedules) {
				this.scheduled = handle;
			}
		}
		if (this.cancelled) {
			handle.cancel();
		}
	}

	boolean rescheduleNow() {
		ScheduledTask current = this.scheduled;
		if (this.cancelled || current == null || !current.cancel()) {
			return false;
		}
		schedule(0);
		return true;
	}

	boolean cancel() {
		if (this.cancelled) {
			return false;
		}
		this.cancelled = true;
		cancelScheduled();
		return true;
	}

	private void cancelScheduled() {
		ScheduledTask current = this.scheduled;
		if (current != null) {
			current.cancel();
		}
	}

	FailbackTask snapshot() {
		Throwable last = this.context.getLastThrowable();
		return new FailbackTask(this.key, this.task, this.attempts, (last != null) ? last.getClass().getName() : null,
				(last != null) ? last.getMessage() : null, this.submittedAt, this.nextAttemptAt);
	}

}
