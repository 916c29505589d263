package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.RetryEventType;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.spi.ScheduledTask;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * One asynchronous call: the future returned to the caller, and the loop of attempts behind it.
 *
 * <p>No thread waits between attempts: a delay is a task on the {@link dev.retrykit.spi.RetryScheduler}. Attempts of
 * one call run one at a time; a retry without delay after an attempt that completed synchronously
 * runs in a trampoline loop, so unlimited retries keep a constant stack depth, and each attempt only
 * attaches one completion to the caller's stage, so memory stays constant too. Cancelling this future
 * cancels the pending retry and, when its stage allows it ({@link AttemptStages#cancel}), the attempt in
 * flight, whose circuit permit is given back at once (also one that was starting while {@code cancel}
 * ran); no attempt starts once {@code cancel} has returned.
 *
 * <p>Every decision is {@link CallLifecycle}'s; this class runs attempts and schedules waits. The call
 * always completes: also when a decision hook throws, when an attempt fails with an
 * {@link InterruptedException} (not retried; no thread's flag is set: a stage completes on any thread),
 * and when the scheduler is stopped with a retry or an attempt's timeout pending or to be scheduled.
 *
 * <p>This object is the future the caller holds, and offers nothing but {@link CompletableFuture}'s API:
 * the scheduler runs a retry through a {@link NextAttempt}, and an attempt's stage reports to an
 * {@link AttemptOutcome}, each made when needed. A pending retry holds this object (40 bytes with
 * compressed oops; 48 with a recovery function, {@link AsyncRetryWithRecovery}), its
 * {@link MutableRetryContext} (64), its {@code NextAttempt} (16) and the scheduler's node (the
 * {@code PendingRetriesScale} benchmark: hence {@link #state} and {@link #waiting}, two fields each
 * doing the work of two).
 *
 * @param <T> the result type
 */
public sealed class AsyncRetry<T> extends CompletableFuture<T> permits AsyncRetryWithRecovery {

	/** Reads an already failed stage's failure; the stage it returns holds it as its value. */
	private static final BiFunction<Object, @Nullable Throwable, @Nullable Throwable> FAILURE = (value, failure) -> failure;

	private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", int.class);

	private static final VarHandle WAITING = VarHandles.field(MethodHandles.lookup(), "waiting", Object.class);

	/** A phase step in {@link #state}, whose low two bits are the trampoline's work in progress. */
	private static final int PHASE_UNIT = 4;

	private static final int WIP_MASK = PHASE_UNIT - 1;

	final RetryRuntime runtime;

	private final Supplier<? extends CompletionStage<T>> supplier;

	final MutableRetryContext context;

	/**
	 * Where the call is, and who runs its attempts (via {@link #STATE}). The upper 30 bits are the
	 * phase: {@code 2n - 1} while attempt {@code n} runs, {@code 2n} once its outcome was taken, by its
	 * completion, its timeout or {@code cancel}, whichever came first; a phase step adds
	 * {@link #PHASE_UNIT}, and every change of the phase is a compare-and-set of the whole int that keeps
	 * the low bits. The low two bits are the trampoline's work in progress, attempts requested and not
	 * yet run, changed only by atomic adds of one: at most 2, the attempt of the loop that runs and the
	 * one that its outcome asked for (an attempt's successor is asked for only once its outcome was
	 * taken, which it cannot be before it started). The phase counts modulo 2^30, so after 536,870,911
	 * attempts the numbers start again at 1; the comparisons hold all the same.
	 */
	private volatile int state;

	/**
	 * What the call waits on (via {@link #WAITING}): the {@link AttemptOutcome} of the attempt in
	 * flight (its stage, and its timer when it has an {@link AttemptTimeout}), or between attempts the
	 * {@link ScheduledTask} of the pending retry, or {@code null}. Never both at once, so one field.
	 * Written by the attempt that starts (it is the newest then), emptied by the one whose outcome was
	 * taken, and given the retry's handle only while no later attempt has started ({@link #publishRetry}).
	 */
	private volatile @Nullable Object waiting;

	AsyncRetry(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier, MutableRetryContext context) {
		this.runtime = runtime;
		this.supplier = supplier;
		this.context = context;
	}

	/** @return the fallback, or {@code null} */
	@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery() {
		return null;
	}

	/**
	 * Starts an asynchronous call ({@link AsyncCallStart}). The first attempt runs on the calling thread;
	 * when it returns an already successful {@link CompletableFuture} whose result is accepted, that
	 * future itself is returned and nothing is allocated.
	 * @param runtime the instance
	 * @param supplier starts one attempt
	 * @param recovery the fallback, or {@code null}
	 * @param <T> the result type
	 * @return the future of the call
	 */
	public static <T> CompletableFuture<T> start(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		return AsyncCallStart.start(runtime, supplier, recovery);
	}

	/** Sets the phase of a call that takes over after its first attempt (plain: published with the call). */
	void tookOver(int phase) {
		STATE.set(this, phase * PHASE_UNIT);
	}

	private void await(CompletionStage<T> stage, int id) {
		long timeoutNanos = this.runtime.attemptTimeoutNanos(this.context);
		if (timeoutNanos <= 0) {
			CompletableFuture<T> future = AttemptStages.readable(stage);
			if (future != null && future.isDone()) {
				// Already complete: nothing in flight to cancel, and no completion of ours to attach.
				if (future.isCompletedExceptionally()) {
					settle(id, null, failureOf(future));
				}
				else {
					settle(id, future.getNow(null), null);
				}
				return;
			}
			AttemptOutcome<T> attempt = new AttemptOutcome<>(this, stage, id);
			this.waiting = attempt;
			cancelIfCancelled(stage);
			// handle, not whenComplete: on a failed stage whenComplete completes its (unused) dependent with
			// a new CompletionException, whose stack trace costs about a microsecond and a kilobyte.
			stage.handle(attempt);
			return;
		}
		// With a timeout the next attempt may start while this one runs: its completion names it.
		AttemptTimeout<T> attempt = new AttemptTimeout<>(this, stage, id, timeoutNanos);
		this.waiting = attempt;
		cancelIfCancelled(stage);
		try {
			attempt.timer(this.runtime.scheduler.schedule(attempt, timeoutNanos, TimeUnit.NANOSECONDS));
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is stopped: nothing would end an attempt that never completes.
			abandonAttempt(id, stage, ex);
			return;
		}
		stage.handle(attempt);
	}

	/** {@link #cancel} completes, then reads {@link #waiting}; this runs after setting it: one of them cancels. */
	private void cancelIfCancelled(CompletionStage<?> stage) {
		if (isCancelled()) {
			AttemptStages.cancel(stage, false, this.runtime.name);
		}
	}

	/**
	 * The failure of a stage that has failed, read without a {@link java.util.concurrent.CompletionException}
	 * (and its stack trace): the stage that {@code handle} returns holds it as its value.
	 */
	@SuppressWarnings("unchecked")
	private static Throwable failureOf(CompletableFuture<?> failed) {
		return Objects.requireNonNull(((CompletableFuture<Object>) failed).handle(FAILURE).getNow(null));
	}

	/** Takes the outcome of attempt {@code id}, which its stage completed with. */
	void attemptCompleted(int id, @Nullable T value, @Nullable Throwable failure) {
		settle(id, value, failure);
	}

	void timedOut(AttemptTimeout<T> attempt) {
		int id = attempt.id;
		long configured = this.runtime.attemptTimeoutNanos();
		TimeoutException timeout = new TimeoutException("Attempt " + id + " of retry '" + this.runtime.name
				+ "' timed out after " + Durations.formatNanos(attempt.timeoutNanos)
				+ ((configured == 0 || attempt.timeoutNanos < configured) ? " (the call's deadline)" : ""));
		if ((this.state & ~WIP_MASK) == (2 * id - 1) * PHASE_UNIT) {
			this.runtime.counters.event(RetryEventType.ATTEMPT_TIMEOUT, id, timeout, 0);
		}
		if (settle(id, null, timeout)) {
			AttemptStages.cancel(attempt.stage, true, this.runtime.name);
		}
	}

	/**
	 * The timeout of attempt {@code id} will never run (its scheduler stopped or refused it): unless the
	 * attempt's outcome was already taken, the call ends now, {@link Decision#STOP_ATTEMPT_ABANDONED},
	 * and the attempt is cancelled, so that an attempt that never completes leaves no call waiting.
	 */
	void abandonAttempt(int id, CompletionStage<?> stage, RejectedExecutionException refusal) {
		if (!takeOutcome(id)) {
			return;
		}
		this.waiting = null;
		CallLifecycle.releaseAttempt(this.runtime, this.context);
		if (!isDone()) {
			end(this.runtime.counters.forCurrentThread(), Decision.STOP_ATTEMPT_ABANDONED, refusal);
		}
		AttemptStages.cancel(stage, true, this.runtime.name);
	}

	/**
	 * Moves the phase from {@code 2id - 1} to {@code 2id}, whatever the trampoline's bits do meanwhile;
	 * returns {@code false} if the phase was not {@code 2id - 1} (the outcome was taken already).
	 */
	private boolean takeOutcome(int id) {
		int running = (2 * id - 1) * PHASE_UNIT;
		for (;;) {
			int state = this.state;
			if ((state & ~WIP_MASK) != running) {
				return false;
			}
			if (STATE.compareAndSet(this, state, state + PHASE_UNIT)) {
				return true;
			}
		}
	}

	/** Takes the outcome of attempt {@code id}; returns {@code false} if it had already been taken. */
	private boolean settle(int id, @Nullable T value, @Nullable Throwable failure) {
		if (!takeOutcome(id)) {
			return false;
		}
		// This attempt's AttemptOutcome, or (when its stage was read at once) the handle of the retry that
		// started it, which has run.
		Object waiting = this.waiting;
		if (waiting != null) {
			if (waiting instanceof AttemptOutcome<?> attempt) {
				attempt.stopTimer();
			}
			this.waiting = null;
		}
		if (isDone()) {
			CallLifecycle.releaseAttempt(this.runtime, this.context);
			return true;
		}
		ThreadCounters block = this.runtime.counters.forCurrentThread();
		long decision = CallLifecycle.afterAttempt(this.runtime, this.context, block,
				(failure != null) ? FailureClassifier.unwrap(failure) : null, value);
		proceed(block, decision, value);
		return true;
	}

	/**
	 * Does what the lifecycle decided after an attempt: complete, end, retry at once, or schedule the
	 * retry. On retrykit's timing wheel the retry is scheduled without a clock read on this thread: its
	 * delay counts from the timer's next pass ({@link TimingWheelScheduler#scheduleFromNextPass}).
	 */
	void proceed(ThreadCounters block, long decision, @Nullable T value) {
		if (decision == Decision.ACCEPTED) {
			complete(value);
		}
		else if (!Decision.isDelay(decision)) {
			end(block, decision, null);
		}
		else if (decision == 0) {
			trampoline();
		}
		else {
			TimingWheelScheduler wheel = this.runtime.wheel;
			int settled = this.state & ~WIP_MASK; // the retry's task is the only one to change it now
			ScheduledTask retry;
			try {
				NextAttempt next = new NextAttempt(this);
				retry = (wheel != null) ? wheel.scheduleFromNextPass(next, decision)
						: this.runtime.scheduler.schedule(next, decision, TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				end(block, Decision.STOP_SCHEDULER_STOPPED, ex);
				return;
			}
			publishRetry(retry, settled);
			// cancel() completes, then reads waiting: one of the two cancels the retry.
			if (isDone()) {
				retry.cancel();
			}
		}
	}

	/**
	 * Makes the pending retry's handle what the call waits on, unless the retry has run already and
	 * started the next attempt (the phase moved on from {@code settled}): {@link #waiting} is then that
	 * attempt's. A thread late with an older handle finds the phase moved on, or replaces only a value
	 * that the newest attempt has still to overwrite, as it does with its {@code AttemptOutcome} and
	 * with this method.
	 */
	private void publishRetry(ScheduledTask retry, int settled) {
		for (;;) {
			Object current = this.waiting;
			if ((this.state & ~WIP_MASK) != settled) {
				return;
			}
			if (WAITING.compareAndSet(this, current, retry)) {
				return;
			}
		}
	}

	/** The scheduler stopped with this call's retry pending: the call ends now (last failure as cause). */
	void abandon(RejectedExecutionException reason) {
		if (!isDone()) {
			end(this.runtime.counters.forCurrentThread(), Decision.STOP_SCHEDULER_STOPPED, reason);
		}
	}

	/** Runs the next attempt: the scheduler calls this when a retry's delay has passed. */
	void runNextAttempt() {
		trampoline();
	}

	private void trampoline() {
		if (((int) STATE.getAndAdd(this, 1) & WIP_MASK) != 0) {
			return;
		}
		do {
			runAttempt();
		}
		while (((int) STATE.getAndAdd(this, -1) & WIP_MASK) != 1);
	}

	private void runAttempt() {
		if (isDone()) {
			return;
		}
		ContextStack stack = ContextStack.get();
		ThreadCounters block = stack.counters(this.runtime);
		if (!CallLifecycle.acquireAttempt(this.runtime, this.context, block)) {
			end(block, Decision.STOP_CIRCUIT_OPEN, null);
			return;
		}
		int id = startAttempt();
		if (isDone()) {
			// Cancelled meanwhile: once cancel() has returned no attempt starts. cancel() reads the phase
			// after completing, this reads completion after the phase: one of them takes the permit back.
			if (takeOutcome(id)) {
				CallLifecycle.releaseAttempt(this.runtime, this.context);
			}
			CallLifecycle.attemptReturned(this.runtime, this.context);
			return;
		}
		CompletionStage<T> stage = null;
		Throwable thrown = null;
		this.context.setParent(stack.top());
		stack.push(this.context);
		// The attempt's code, and the calls it makes downstream, see the call's deadline on this thread.
		dev.retrykit.Deadline.Scope deadline = CallDeadlines.enter(this.context);
		try {
			stage = this.supplier.get();
		}
		catch (Throwable ex) {
			thrown = ex;
		}
		finally {
			CallDeadlines.exit(deadline);
			stack.pop();
		}
		CallLifecycle.attemptReturned(this.runtime, this.context);
		started(stage, thrown, id);
	}

	/**
	 * Moves the phase from {@code 2n}, the outcome of attempt {@code n} taken, to {@code 2n + 1}, and
	 * returns {@code n + 1}. One atomic add: only the trampoline's loop starts attempts, one at a time,
	 * each after the outcome of the one before was taken, and nothing else moves an even phase.
	 */
	private int startAttempt() {
		return ((int) STATE.getAndAdd(this, PHASE_UNIT) >>> 3) + 1; // (phase >>> 1) + 1
	}

	/** Takes over attempt {@code id} once its supplier returned {@code stage} or threw {@code thrown}. */
	void started(@Nullable CompletionStage<T> stage, @Nullable Throwable thrown, int id) {
		if (thrown != null || stage == null) {
			settle(id, null, (thrown != null) ? thrown : AttemptStages.nullStage(this.runtime.name));
		}
		else {
			await(stage, id);
		}
	}

	/** Ends a call that did not succeed, as {@link CallEnding#finish} says. */
	void end(ThreadCounters block, long reason, @Nullable RejectedExecutionException refusal) {
		try {
			CallEnding.finish(this.runtime, this.context, block, reason, refusal, false, AsyncRetryEnding.INSTANCE, this);
		}
		catch (Throwable ex) {
			// AsyncRetryEnding throws nothing: it completes this future instead.
			completeExceptionally(ex);
		}
	}

	/**
	 * Cancels the call: the pending retry never runs, the attempt in flight gives its circuit permit
	 * back at once (it may never complete) and is cancelled when its stage allows it.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		// Our CancellationException has no stack trace; completing with it tells whether this call cancelled.
		CallCancelledException cancellation = new CallCancelledException(this.runtime.name);
		if (!completeExceptionally(cancellation)) {
			return isCancelled();
		}
		Object waiting = this.waiting;
		CompletionStage<?> inFlight = null;
		if (waiting instanceof AttemptOutcome<?> attempt) {
			attempt.stopTimer();
			inFlight = attempt.stage;
		}
		else if (waiting instanceof ScheduledTask retry) {
			retry.cancel();
		}
		int phase = this.state >>> 2;
		if ((phase & 1) == 1 && takeOutcome((phase + 1) >>> 1)) {
			CallLifecycle.releaseAttempt(this.runtime, this.context);
		}
		AttemptStages.cancel(inFlight, mayInterruptIfRunning, this.runtime.name);
		CallEnding.endedFromOutside(this.runtime, this.context, cancellation);
		return true;
	}

	@Override
	public String toString() {
		return "AsyncRetry[name=" + this.runtime.name + ", attempt=" + (((this.state >>> 2) + 1) >>> 1) + ", "
				+ super.toString() + "]";
	}

}
