package dev.retrykit.internal;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryVetoedException;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * One failback task: its retry context and its pending schedule. Attempts run one at a time: the first
 * on the submitting thread, the others when the scheduler fires this entry.
 */
final class FailbackEntry implements Runnable {

	/** The longest a task waiting for the circuit goes without looking at it again. */
	static final long CIRCUIT_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

	final FailbackEngine engine;

	final Object key;

	final Runnable task;

	final MutableRetryContext context;

	private final Instant submittedAt;

	private volatile @Nullable ScheduledTask scheduled;

	private volatile @Nullable Instant nextAttemptAt;

	private volatile boolean cancelled;

	private int attempts;

	/** Whether the task waits for the circuit, so that a wake-up while it is still open is only a re-check. */
	private boolean awaitingCircuit;

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
			waitForCircuit(true);
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
		if (this.awaitingCircuit && Objects.requireNonNull(runtime.circuitBreaker).getRemainingOpenNanos() > 0) {
			// A re-check while the circuit is still open: no attempt is due, so none is refused.
			waitForCircuit(false);
			return;
		}
		ThreadCounters block = runtime.counters.forCurrentThread();
		if (!runtime.acquireAttempt(this.context, block)) {
			runtime.onRejectedAttempt(this.context, block);
			waitForCircuit(false);
			return;
		}
		this.awaitingCircuit = false;
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
			schedule(decision, true);
		}
		else if (decision == RetryRuntime.STOP_CIRCUIT_OPEN) {
			waitForCircuit(true);
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

	/**
	 * Waits until the circuit may let the next attempt through: until its open timeout ends, but
	 * re-checking at least every {@link #CIRCUIT_RECHECK_NANOS}, because a forced-open circuit has no
	 * timeout and one closed by hand should resume its tasks soon, and a half-open circuit whose trial
	 * slots are all taken says nothing about when one frees up. Ends the task as exhausted when the
	 * next attempt could only start past max-duration (for a forced-open circuit: the next re-check).
	 * @param announce whether the task is queued anew (after a failed or a first attempt) rather than
	 * still waiting, which is neither an event nor news for the listeners
	 */
	private void waitForCircuit(boolean announce) {
		RetryRuntime runtime = this.engine.runtime;
		CircuitBreaker breaker = Objects.requireNonNull(runtime.circuitBreaker);
		long open = breaker.getRemainingOpenNanos();
		long wait = (open == 0 || breaker.isForcedOpen()) ? CIRCUIT_RECHECK_NANOS : open;
		if (runtime.isPastDeadline(this.context, wait)) {
			stop(RetryRuntime.STOP_DEADLINE, Objects.requireNonNull(this.context.getLastThrowable()),
					runtime.counters.forCurrentThread());
			return;
		}
		this.awaitingCircuit = true;
		schedule(Math.min(wait, CIRCUIT_RECHECK_NANOS), announce);
	}

	private void schedule(long delayNanos, boolean announce) {
		this.nextAttemptAt = this.engine.now().plusNanos(delayNanos);
		long ticket;
		synchronized (this) {
			ticket = ++this.schedules;
		}
		if (announce) {
			// Pending before the scheduler has it: a retry due now may run, and end, before schedule returns.
			this.engine.queued(this, delayNanos, ticket == 1);
		}
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
		schedule(0, true);
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
		return new FailbackTask(this.key, this.task, this.attempts, FailureText.typeName(last),
				FailureText.boundedMessage(last), this.submittedAt, this.nextAttemptAt);
	}

}
