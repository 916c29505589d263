package dev.retrykit.internal;

import dev.retrykit.Deadline;
import dev.retrykit.RetryVetoedException;
import dev.retrykit.context.CallOutcome;
import dev.retrykit.context.StopReason;
import org.jspecify.annotations.Nullable;

/**
 * How a call opens, for every engine, before {@link CallLifecycle} takes it through its attempts: the
 * listeners hear of it (and may veto it), its deadline is set ({@link CallDeadlines}), the budget learns
 * that a call starts. A stateful call that continues from a cached context opens without a new start.
 * Stateless.
 */
final class CallOpening {

	private CallOpening() {
	}

	/**
	 * Starts a call: lets its operation describe it to the listeners when it is a
	 * {@link dev.retrykit.RetryCallDescriber}, sets its deadline (the earlier of max-duration and the
	 * {@link Deadline} current on this thread), asks the listeners, and tells the budget (if any) that a
	 * call starts. The engine then ends a call whose caller's deadline has passed already
	 * ({@link CallDeadlines#passedAtOpen}).
	 * @param operation the call's operation (callback, function, supplier or task)
	 * @return whether the listeners let the call run
	 */
	static boolean open(RetryRuntime runtime, MutableRetryContext context, @Nullable Object operation) {
		return open(runtime, context, operation, Deadline.current());
	}

	/**
	 * {@link #open} for a call that outlives its caller (a failback task): it runs under no caller's
	 * deadline, only its max-duration.
	 */
	static boolean openDetached(RetryRuntime runtime, MutableRetryContext context, @Nullable Object operation) {
		return open(runtime, context, operation, null);
	}

	private static boolean open(RetryRuntime runtime, MutableRetryContext context, @Nullable Object operation,
			@Nullable Deadline deadline) {
		runtime.listeners.describe(operation, context);
		if (!runtime.open(context, deadline)) {
			return false;
		}
		if (runtime.budget != null) {
			// A ratio budget's deposit; a stateful call that continues (openContinued) is not a new call.
			runtime.budget.onCall();
		}
		return true;
	}

	/**
	 * Continues a stateful call from a cached context: asks the listeners, without stamping a new start
	 * (max-duration runs from the key's first call); the call's deadline is the earlier of that and the
	 * {@link Deadline} current on this thread.
	 * @param operation the continuing call's operation, which may describe it as for {@link #open}
	 * @return whether the listeners let the call run
	 */
	static boolean openContinued(RetryRuntime runtime, MutableRetryContext.Stateful context,
			@Nullable Object operation) {
		runtime.listeners.describe(operation, context);
		Deadline deadline = Deadline.current();
		if (context.keyDeadlineNanos != CallDeadlines.NONE || deadline != null) {
			CallDeadlines.open(runtime, context, context.keyDeadlineNanos, deadline);
		}
		else {
			context.deadline(CallDeadlines.NONE, null);
		}
		return runtime.listeners.isEmpty() || runtime.listeners.open(context);
	}

	/** Ends a call that a listener vetoed: the listeners are closed with the returned exception. */
	static RetryVetoedException vetoed(RetryRuntime runtime, MutableRetryContext context, String what) {
		RetryVetoedException vetoed = new RetryVetoedException(what + " '" + runtime.name
				+ "' was vetoed by a listener before its first attempt");
		context.outcome(CallOutcome.FAILED_WITHOUT_RETRY);
		context.stopReason(StopReason.OTHER);
		runtime.close(context, vetoed);
		return vetoed;
	}

}
