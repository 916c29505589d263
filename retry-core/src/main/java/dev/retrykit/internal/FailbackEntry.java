package dev.retrykit.internal;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.spi.AbandonableTask;
import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * One failback task: its retry context and its pending schedule. Attempts run one at a time: the first
 * on the submitting thread, the others when the scheduler fires this entry.
 */
final class FailbackEntry implements AbandonableTask {

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

	/**
	 * Runs the first attempt on the submitting thread.
	 * @param check whether a failure is thrown to the caller instead of queued
	 * @return whether the attempt succeeded
	 */
	boolean runFirst(boolean check) {
		RetryRuntime runtime = this.engine.runtime;
		// A failback task outlives its caller: it runs under its max-duration only, not its caller's deadline.
		if (!CallOpening.openDetached(runtime, this.context, this.task)) {
			throw CallOpening.vetoed(runtime, this.context, "Failback task '" + this.key + "' of");
		}
		ThreadCounters block = runtime.counters.forCurrentThread();
		if (!CallLifecycle.acquireAttempt(runtime, this.context, block)) {
			if (check) {
				throw endForCaller(block, Decision.STOP_CIRCUIT_OPEN);
			}
			CallEnding.rejectedAttempt(runtime, this.context, block);
			waitForCircuit(true);
			return false;
		}
		Throwable failure = attempt();
		long decision = CallLifecycle.afterAttempt(runtime, this.context, block, failure, null);
		if (decision == Decision.ACCEPTED) {
			return true;
		}
		if (check) {
			// Dubbo's check: the caller gets the failure and nothing is queued.
			throw endForCaller(block, !Decision.isDelay(decision) ? decision : Decision.STOP_EXHAUSTED);
		}
		after(decision, block);
		return false;
	}

	private RuntimeException endForCaller(ThreadCounters block, long reason) {
		return Sneaky.<RuntimeException>rethrow(finish(block, reason, null));
	}

	/** Ends the task through the lifecycle; returns the failure it ends with. */
	private Throwable finish(ThreadCounters block, long reason, @Nullable RejectedExecutionException refusal) {
		try {
			return CallEnding.finish(this.engine.runtime, this.context, block, reason, refusal, true,
					FailbackEnding.INSTANCE, this);
		}
		catch (Throwable ex) {
			// FailbackEnding throws nothing; were it to, the task still ends with what it threw.
			return ex;
		}
	}

	/** A scheduled retry is due. */
	@Override
	public void run() {
		if (this.cancelled) {
			return;
		}
		RetryRuntime runtime = this.engine.runtime;
		if (this.awaitingCircuit && Objects.requireNonNull(runtime.circuit).getRemainingOpenNanos() > 0) {
			// A re-check while the circuit is still open: no attempt is due, so none is refused.
			waitForCircuit(false);
			return;
		}
		ThreadCounters block = runtime.counters.forCurrentThread();
		if (!CallLifecycle.acquireAttempt(runtime, this.context, block)) {
			CallEnding.rejectedAttempt(runtime, this.context, block);
			waitForCircuit(false);
			return;
		}
		this.awaitingCircuit = false;
		Throwable failure = attempt();
		long decision = CallLifecycle.afterAttempt(runtime, this.context, block, failure, null);
		if (decision == Decision.ACCEPTED) {
			this.engine.succeeded(this);
			return;
		}
		after(decision, block);
	}

	/**
	 * The scheduler stopped with this task's retry pending: the task ends as exhausted, with a
	 * rejection that says so (the last failure as its cause), reported to the listeners.
	 */
	@Override
	public void abandon(RejectedExecutionException reason) {
		if (!this.cancelled) {
			stop(Decision.STOP_SCHEDULER_STOPPED, this.engine.runtime.counters.forCurrentThread(), reason);
		}
	}

	private @Nullable Throwable attempt() {
		this.attempts++;
		ContextStack stack = ContextStack.get();
		this.context.setParent(stack.top());
		stack.push(this.context);
		Throwable failure = null;
		try {
			this.task.run();
		}
		catch (Throwable ex) {
			failure = ex;
		}
		finally {
			stack.pop();
		}
		CallLifecycle.attemptReturned(this.engine.runtime, this.context);
		return failure;
	}

	private void after(long decision, ThreadCounters block) {
		if (this.cancelled) {
			return;
		}
		if (Decision.isDelay(decision)) {
			schedule(decision, true);
		}
		else if (decision == Decision.STOP_CIRCUIT_OPEN) {
			waitForCircuit(true);
		}
		else {
			stop(decision, block);
		}
	}

	/** Ends the task as exhausted, with what the lifecycle says it ends with. */
	private void stop(long reason, ThreadCounters block) {
		stop(reason, block, null);
	}

	/** The same, with the scheduler's refusal when the scheduler ended it. */
	private void stop(long reason, ThreadCounters block, @Nullable RejectedExecutionException refusal) {
		this.nextAttemptAt = null;
		this.engine.exhausted(this, finish(block, reason, refusal));
	}

	/**
	 * A failback task's end: it has no recovery; it ends with its last failure, which the engine hands
	 * to the failback listeners, or (with {@code check}) the submitting caller gets.
	 */
	private static final class FailbackEnding implements CallEnding.Ending<Throwable, FailbackEntry> {

		static final FailbackEnding INSTANCE = new FailbackEnding();

		@Override
		public boolean hasRecovery(FailbackEntry entry) {
			return false;
		}

		@Override
		public Throwable recover(FailbackEntry entry, RetryRuntime runtime, MutableRetryContext context,
				ThreadCounters block, @Nullable Throwable failure) {
			throw new IllegalStateException("A failback task has no recovery");
		}

		@Override
		public Throwable fail(FailbackEntry entry, MutableRetryContext context, @Nullable Throwable failure) {
			// A failback task ends with a failure: it has no result that a predicate could reject.
			return Objects.requireNonNull(failure);
		}

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
		CircuitBreaker breaker = Objects.requireNonNull(runtime.circuit);
		long open = breaker.getRemainingOpenNanos();
		long wait = (open == 0 || breaker.isForcedOpen()) ? CIRCUIT_RECHECK_NANOS : open;
		if (runtime.isPastDeadline(this.context, wait)) {
			stop(Decision.STOP_DEADLINE, runtime.counters.forCurrentThread());
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
			stop(Decision.STOP_SCHEDULER_STOPPED, this.engine.runtime.counters.forCurrentThread(), ex);
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

	boolean isCancelled() {
		return this.cancelled;
	}

	/** @return whether this call cancelled the task: true once, however many callers race (shutdown, replace, cancel) */
	boolean cancel() {
		synchronized (this) {
			if (this.cancelled) {
				return false;
			}
			this.cancelled = true;
		}
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
