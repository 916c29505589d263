package dev.retrykit.internal;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

import dev.retrykit.context.CallOutcome;
import dev.retrykit.RecoveryCallback;
import dev.retrykit.RetryEventType;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.context.StopReason;
import org.jspecify.annotations.Nullable;

/**
 * How a call that did not succeed ends, for every engine: {@link #finish} records the end (counters,
 * event, the exception the call ends with), sets the interrupt flag of a thread whose attempt or wait
 * met an interrupt, then recovers or closes the listeners and fails; an engine says only how its
 * recovery runs and how it fails ({@link Ending}). With {@link CallLifecycle}, which takes a call up to
 * its end, the whole protocol of a call. Stateless; thread-safe as far as one call's steps run one at
 * a time.
 */
final class CallEnding {

	private CallEnding() {
	}

	/**
	 * Records how a call that did not succeed ends (counters and event) and tells what it ends with,
	 * before the engine recovers or fails. Call once per call, never for {@link Decision#ACCEPTED}.
	 * @param reason the {@code STOP_*} reason
	 * @return the exception the call ends with when it is not recovered, or {@code null} when it ends
	 * with its last rejected result ({@link MutableRetryContext#getLastResult()})
	 */
	static @Nullable Throwable end(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			long reason) {
		return end(runtime, context, block, reason, null);
	}

	/**
	 * Like {@link #end(RetryRuntime, MutableRetryContext, ThreadCounters, long)}, for the scheduler's
	 * reasons ({@link Decision#STOP_SCHEDULER_STOPPED}, {@link Decision#STOP_ATTEMPT_ABANDONED}), with the scheduler's own
	 * refusal, whose message the call's exception repeats (a stop, a saturated executor) and which it
	 * keeps as suppressed.
	 * @param refusal what the scheduler threw or abandoned the task with, or {@code null}
	 */
	static @Nullable Throwable end(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			long reason, @Nullable RejectedExecutionException refusal) {
		int retries = context.getRetryCount();
		Throwable last = context.getLastThrowable();
		context.stopReason(stopReason(reason));
		if (reason == Decision.STOP_CIRCUIT_OPEN) {
			RuntimeException rejection = rejection(runtime, context, block);
			// The refused attempt was a retry when an attempt ran before it.
			block.outcome(false, retries >= 1);
			context.outcome(CallOutcome.REJECTED);
			return rejection;
		}
		if (reason == Decision.STOP_ATTEMPT_ABANDONED) {
			// The attempt in flight is cancelled, not failed: it made the call one attempt longer.
			block.outcome(false, retries >= 1);
			context.outcome(CallOutcome.failed(retries >= 1));
			RejectedExecutionException stopped = refused(runtime.name + "' could not time out attempt " + (retries + 1)
					+ ": " + refusal(refusal, "the timeout") + ", so the attempt was cancelled", last, refusal);
			runtime.counters.event(RetryEventType.EXHAUSTED, retries + 1, stopped, 0);
			return stopped;
		}
		block.outcome(false, retries > 1);
		context.outcome(CallOutcome.failed(retries > 1));
		if (reason == Decision.STOP_BUDGET) {
			block.budgetRejection();
			runtime.counters.event(RetryEventType.BUDGET_REJECTION, retries, last, 0);
		}
		else if (reason == Decision.STOP_DEADLINE) {
			block.deadlineRejection();
			runtime.counters.event(RetryEventType.DEADLINE_REJECTION, retries, last, 0);
		}
		else if (reason == Decision.STOP_DOWNSTREAM_EXHAUSTED) {
			block.downstreamRejection();
			runtime.counters.event(RetryEventType.DOWNSTREAM_EXHAUSTED_REJECTION, retries, last, 0);
		}
		else if (reason == Decision.STOP_NOT_RETRYABLE) {
			runtime.counters.event(RetryEventType.NON_RETRYABLE_FAILURE, retries, last, 0);
		}
		else if (reason == Decision.STOP_INTERRUPTED) {
			runtime.counters.event(RetryEventType.INTERRUPTED, retries, last, 0);
		}
		else if (reason == Decision.STOP_WAIT_INTERRUPTED) {
			// Its event was recorded with the wait, by sleep.
			return last;
		}
		else if (reason == Decision.STOP_SCHEDULER_STOPPED) {
			RejectedExecutionException stopped = refused(runtime.name + "' could not wait for attempt " + (retries + 1)
					+ ": " + refusal(refusal, "it"), last, refusal);
			runtime.counters.event(RetryEventType.EXHAUSTED, retries, stopped, 0);
			return stopped;
		}
		else if (reason != Decision.STOP_BROKEN) {
			runtime.counters.event(RetryEventType.EXHAUSTED, retries, last, 0);
		}
		return last;
	}

	/**
	 * {@return why a call that ends with {@code reason} stopped, as its listeners are told}
	 * @param reason a {@code STOP_*} reason of {@link Decision}
	 */
	static StopReason stopReason(long reason) {
		// Switched on as an int: every STOP_* reason is a small negative number (a long cannot be switched on).
		return switch ((int) reason) {
			case (int) Decision.STOP_NOT_RETRYABLE -> StopReason.NOT_RETRYABLE;
			case (int) Decision.STOP_EXHAUSTED -> StopReason.ATTEMPTS_EXHAUSTED;
			case (int) Decision.STOP_DEADLINE -> StopReason.DEADLINE;
			case (int) Decision.STOP_BUDGET -> StopReason.BUDGET_EXHAUSTED;
			case (int) Decision.STOP_CIRCUIT_OPEN -> StopReason.CIRCUIT_OPEN;
			case (int) Decision.STOP_DOWNSTREAM_EXHAUSTED -> StopReason.DOWNSTREAM_EXHAUSTED;
			case (int) Decision.STOP_INTERRUPTED, (int) Decision.STOP_WAIT_INTERRUPTED -> StopReason.CANCELLED;
			// A broken hook, a stopped scheduler, an abandoned attempt.
			default -> StopReason.OTHER;
		};
	}

	/**
	 * Records an attempt refused by the open circuit of a call that does not end with it (a failback
	 * task waits for the circuit), and makes the rejection the call's last failure.
	 */
	static RuntimeException rejectedAttempt(RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block) {
		return rejection(runtime, context, block);
	}

	private static RuntimeException rejection(RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block) {
		CircuitBreaker breaker = Objects.requireNonNull(runtime.circuit);
		Throwable last = context.getLastThrowable();
		// A failback task refused again and again keeps the real failure as cause, not a chain of rejections.
		Throwable cause = (last != null && last instanceof CircuitOpenException) ? last.getCause() : last;
		RuntimeException rejection = breaker.newCircuitOpenException(cause);
		block.circuitRejection();
		context.rejected(rejection);
		runtime.counters.event(RetryEventType.CIRCUIT_OPEN_REJECTION, context.getRetryCount() + 1, rejection, 0);
		return rejection;
	}

	private static String refusal(@Nullable RejectedExecutionException refusal, String task) {
		return (refusal != null) ? "its scheduler did not run " + task + " (" + refusal.getMessage() + ")"
				: "its scheduler is stopped";
	}

	private static RejectedExecutionException refused(String what, @Nullable Throwable last,
			@Nullable RejectedExecutionException refusal) {
		RejectedExecutionException refused = new RejectedExecutionException("Retry '" + what
				+ ((last != null) ? "; the cause is the last failure" : ""), last);
		if (refusal != null) {
			refused.addSuppressed(refusal);
		}
		return refused;
	}

	/**
	 * Whether a call that ended as {@link #end} says runs its recovery: only when it has one, ended by
	 * a decision (not a broken hook, an interrupt or a stopped scheduler), and its failure is not of a
	 * {@code notRecoverable} type.
	 */
	static boolean recovers(RetryRuntime runtime, long reason, @Nullable Throwable ending, boolean hasRecovery) {
		return hasRecovery && reason != Decision.STOP_BROKEN && reason != Decision.STOP_INTERRUPTED && reason != Decision.STOP_WAIT_INTERRUPTED
				&& reason != Decision.STOP_SCHEDULER_STOPPED && reason != Decision.STOP_ATTEMPT_ABANDONED && !runtime.isNotRecoverable(ending);
	}

	/**
	 * How an engine ends a call that did not succeed: what differs between engines once
	 * {@link #finish} has decided. Implementations are stateless; {@code X} is the engine's own state.
	 * @param <R> what the engine's {@code finish} returns
	 * @param <X> what the engine hands to it
	 */
	interface Ending<R extends @Nullable Object, X> {

		/** @return whether the call has a recovery */
		boolean hasRecovery(X call);

		/**
		 * Runs the recovery of a call that ends with {@code failure}; it reports the recovery's outcome
		 * with {@link #recovered} or {@link #recoveryFailed}.
		 */
		R recover(X call, RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
				@Nullable Throwable failure) throws Throwable;

		/**
		 * @param last what the call ends with, or {@code null} when it ends with its last rejected result
		 * @return what the call fails with, told to the listeners' {@code close}: {@code last} unless the
		 * engine wraps it
		 */
		default @Nullable Throwable failure(X call, MutableRetryContext context, @Nullable Throwable last) {
			return last;
		}

		/** Fails the call, once the listeners are closed: throws, or completes the caller's future. */
		R fail(X call, MutableRetryContext context, @Nullable Throwable failure) throws Throwable;

	}

	/**
	 * Ends a call that did not succeed, for every engine: records its end ({@link #end}), sets the
	 * interrupt flag of a thread whose attempt or wait met an interrupt, then either recovers (when
	 * {@link #recovers}) or closes the listeners and fails. Call once per call, never for {@link Decision#ACCEPTED}.
	 * @param reason the {@code STOP_*} reason
	 * @param refusal the scheduler's refusal, for the scheduler's reasons, or {@code null}
	 * @param onCallerThread whether the attempts ran, and the waits happened, on this thread, so that an
	 * interrupt they met is this thread's
	 */
	static <R extends @Nullable Object, X> R finish(RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block, long reason, @Nullable RejectedExecutionException refusal, boolean onCallerThread,
			Ending<R, X> ending, X call) throws Throwable {
		Throwable last = end(runtime, context, block, reason, refusal);
		if (onCallerThread && (reason == Decision.STOP_INTERRUPTED || reason == Decision.STOP_WAIT_INTERRUPTED)) {
			Thread.currentThread().interrupt();
		}
		if (ending.hasRecovery(call) && recovers(runtime, reason, last, true)) {
			return ending.recover(call, runtime, context, block, last);
		}
		Throwable failure = ending.failure(call, context, last);
		runtime.close(context, failure);
		return ending.fail(call, context, failure);
	}

	/**
	 * Ends a stateful call whose failure is rethrown for its caller to roll back: a failed call, counted as
	 * the observation of the call reports it, whose listeners are closed with the failure. Its stop reason
	 * is {@link StopReason#OTHER} when a retry is left for the key's next call (the caller rolls back, a
	 * redelivery retries: no exhaustion), else the reason the key can no longer retry.
	 * @param reason the decision after the failure: a delay, or a {@code STOP_*} reason
	 */
	static void rethrownForRollback(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			Throwable failure, long reason) {
		boolean retried = context.getRetryCount() > 1;
		block.outcome(false, retried);
		context.outcome(CallOutcome.failed(retried));
		context.stopReason(Decision.isDelay(reason) ? StopReason.OTHER : stopReason(reason));
		runtime.close(context, failure);
	}

	/**
	 * Ends a call whose caller completed its future from outside ({@code cancel}, {@code complete},
	 * {@code orTimeout}) before it ended: it failed, as far as its own attempts go, and its listeners are
	 * closed with what the future was completed with ({@code null} for a value).
	 * @param failure what the caller completed the future with, or {@code null} for a value
	 */
	static void endedFromOutside(RetryRuntime runtime, MutableRetryContext context, @Nullable Throwable failure) {
		context.outcome(CallOutcome.failed(context.getRetryCount() >= 1));
		context.stopReason(StopReason.CANCELLED);
		runtime.close(context, failure);
	}

	/**
	 * Runs a recovery on this thread and reports its outcome.
	 * @return the recovery's result
	 * @throws Throwable what the recovery threw, after the listeners are closed with it
	 */
	static <T extends @Nullable Object> T recoverHere(RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block, RecoveryCallback<T> recovery) throws Throwable {
		T result;
		try {
			result = recovery.recover(context);
		}
		catch (Throwable failure) {
			recoveryFailed(runtime, context, failure);
			throw failure;
		}
		recovered(runtime, context, block);
		return result;
	}

	/** Records a successful recovery and closes the call. */
	static void recovered(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block) {
		block.recovery();
		context.outcome(CallOutcome.RECOVERED);
		runtime.counters.event(RetryEventType.RECOVERED, Math.max(1, context.getRetryCount()),
				context.getLastThrowable(), 0);
		runtime.close(context, null);
	}

	/** Closes a call whose recovery failed, with the recovery's failure. */
	static void recoveryFailed(RetryRuntime runtime, MutableRetryContext context, Throwable failure) {
		runtime.close(context, failure);
	}

}
