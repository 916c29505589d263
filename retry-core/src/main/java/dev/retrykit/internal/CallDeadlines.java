package dev.retrykit.internal;

import dev.retrykit.Deadline;
import dev.retrykit.DeadlineExceededException;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * The deadline of a call: the earlier of its {@code max-duration} from its start and the caller's
 * {@link Deadline} current when it opens, kept on the engine's own clock in
 * {@link MutableRetryContext#deadlineNanos} ({@code Long.MAX_VALUE} when there is none), so that every
 * check against it ({@link RetryRuntime#isPastDeadline}, {@link RetryRuntime#attemptTimeoutNanos(MutableRetryContext)},
 * a hedged call's copies' timeouts) is one comparison; and the caller's {@code Deadline}, kept on the
 * context so that the attempts and hedged copies that run on other threads run under it.
 *
 * <p>An application that never enters a deadline pays nothing for this: {@link Deadline#current()} is
 * compiled to a constant {@code null} until a deadline is first entered, and an instance without
 * {@code max-duration} reads no clock. Stateless.
 */
final class CallDeadlines {

	/** {@link MutableRetryContext#deadlineNanos} of a call without a deadline. */
	static final long NONE = Long.MAX_VALUE;

	private CallDeadlines() {
	}

	/**
	 * Sets the deadline of a call that opens now.
	 * @param maxDurationDeadline the deadline from {@code max-duration} on the engine's clock, {@link #NONE}
	 * for none, or {@link RetryRuntime#NOT_READ} to count {@code max-duration} from now (and, for a
	 * stateful call, to remember that as its key's)
	 * @param deadline the caller's deadline, or {@code null}
	 */
	static void open(RetryRuntime runtime, MutableRetryContext context, long maxDurationDeadline,
			@Nullable Deadline deadline) {
		long nanos = maxDurationDeadline;
		if (nanos == RetryRuntime.NOT_READ || deadline != null) {
			long now = runtime.timeSource.nanoTime();
			if (nanos == RetryRuntime.NOT_READ) {
				nanos = fromNow(now, runtime.maxDurationNanos);
				if (context instanceof MutableRetryContext.Stateful stateful) {
					// A stateful key's first call: max-duration runs from it, whichever call continues the key.
					stateful.keyDeadlineNanos = nanos;
				}
			}
			if (deadline != null) {
				// One clock read for both when the deadline is on the engine's clock (the system's, as a rule).
				long left = deadline.remainingNanosAt(runtime.timeSource, now);
				nanos = Math.min(nanos, fromNow(now, left));
				if (left <= 0) {
					context.deadline(nanos, deadline);
					context.deadlinePassed(Math.max(1, -left));
					return;
				}
			}
		}
		context.deadline(nanos, deadline);
	}

	/** {@return {@code now + nanos}, saturated at {@link #NONE}} */
	static long fromNow(long now, long nanos) {
		long sum = now + nanos;
		return (nanos > 0 && sum < now) ? NONE : sum;
	}

	/**
	 * Whether the caller's deadline had passed before the call's first attempt: if so, the call's last
	 * failure is a {@link DeadlineExceededException} and the engine ends the call with
	 * {@link Decision#STOP_DEADLINE}, running no attempt.
	 */
	static boolean passedAtOpen(RetryRuntime runtime, MutableRetryContext context) {
		// A call with a deadline that had passed has one: most calls are decided by a field of the context.
		if (context.deadlineNanos == NONE) {
			return false;
		}
		long passed = context.deadlinePassedNanos();
		if (passed == 0) {
			return false;
		}
		context.rejected(new DeadlineExceededException("Retry '" + runtime.name + "' ran no attempt: its caller's"
				+ " deadline passed " + Durations.formatNanos(passed) + " ago"));
		return true;
	}

	/**
	 * Makes the call's deadline current on this thread while an attempt or a hedged copy of it runs
	 * here, so that the attempt's code (and the calls it makes downstream) sees it.
	 * @return the scope to close once the attempt's code returned, or {@code null} when the call has no
	 * caller's deadline
	 */
	static Deadline.@Nullable Scope enter(MutableRetryContext context) {
		Deadline deadline = context.deadline();
		return (deadline != null) ? deadline.enter() : null;
	}

	/** Closes what {@link #enter} returned. */
	static void exit(Deadline.@Nullable Scope scope) {
		if (scope != null) {
			scope.close();
		}
	}

}
