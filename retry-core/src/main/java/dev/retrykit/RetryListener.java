package dev.retrykit;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.retrykit.context.RetryContext;
/**
 * Callbacks around a retried call. Every method is a no-op by default.
 *
 * <p>Order for one call: {@link #open} once, then per attempt {@link #beforeAttempt},
 * {@link #attemptReturned} and then {@link #onError} (failed attempt, with {@link #onRetry} when another
 * attempt follows) or {@link #onSuccess}, then {@link #close} once. An attempt refused by an open circuit
 * gets no {@code beforeAttempt}. Listeners are called in registration order for {@code open},
 * {@code beforeAttempt}, {@code onSuccess}, {@code onError} and {@code onRetry}, and in reverse order for
 * {@code attemptReturned} and {@code close}. The copies of a hedged call run side by side: each callback
 * about one copy ({@code beforeAttempt} to {@code onRetry}) gets the call's context as that copy sees it,
 * its retry count the copy's number less one and its attribute {@code retry.hedged} {@code true} in every
 * copy after the first only (the other attributes are the call's); a copy still in flight when the call
 * ends gets no callback of its own before {@code close}. A hedged call never tells its listeners while
 * it holds the call's lock, and tells its outcome callbacks ({@code onError}, {@code onRetry},
 * {@code onSuccess}, {@code close}) one at a time in the order decided: a listener that blocks holds up
 * only the callbacks after it (and, in {@code beforeAttempt}, its own copy), never another copy or the
 * future of a call that succeeds, and one may cancel or complete the call's future; {@code close} waits for the callbacks in progress, so the future of a hedged call
 * that succeeded may complete before its {@code close}. An exception thrown by a
 * listener never breaks the call: it is caught, counted in {@link RetryMetrics#getListenerFailures()} and logged.
 * Implementations must be thread-safe: one listener serves every call of every instance it is
 * registered on, and the callbacks of a hedged call's copies may run on different threads at once.
 */
public interface RetryListener {

	/**
	 * Called before the first attempt.
	 * @param context the call's context
	 * @return {@code false} to veto the call: no attempt runs and the call throws
	 * {@link RetryVetoedException}
	 */
	default boolean open(RetryContext context) {
		return true;
	}

	/**
	 * Called right before each attempt runs, the first one included: after the wait before it and
	 * after the circuit breaker let it through, on the thread that runs it (for an async retry, an
	 * executor's thread). Every engine calls it: synchronous, stateful, async and failback. An async
	 * attempt that was cancelled between this call and its start does not run; the call is then closed.
	 * @param context the call's context; {@link RetryContext#getRetryCount()} is the number of the
	 * attempt minus one
	 */
	default void beforeAttempt(RetryContext context) {
	}

	/**
	 * Called after every {@link #beforeAttempt}, on the same thread, as soon as the attempt's code has
	 * returned to the engine, whether it returned or threw, and before its outcome is reported: for a
	 * synchronous attempt when the operation returned; for an asynchronous attempt when its supplier
	 * returned the attempt's stage, which may still be running. Also called, right away, for an async
	 * attempt that was cancelled between {@code beforeAttempt} and its start and so did not run (the
	 * call may then already be closed). A listener that puts something in scope on the attempt's thread
	 * in {@code beforeAttempt} (an observation, a log context) takes it out here, so that the attempt's
	 * own code runs inside it and nothing stays behind on the thread.
	 * @param context the call's context
	 */
	default void attemptReturned(RetryContext context) {
	}

	/**
	 * Called after an attempt returned a result that was accepted.
	 * @param context the call's context
	 * @param result the result, possibly {@code null}
	 */
	default void onSuccess(RetryContext context, @Nullable Object result) {
	}

	/**
	 * Called after an attempt failed (threw, or returned a result the instance retries on).
	 * @param context the call's context, with the failure counted
	 * @param failure the exception, or {@code null} when a result was rejected
	 */
	default void onError(RetryContext context, @Nullable Throwable failure) {
	}

	/**
	 * Called when another attempt is about to follow a failure, before waiting.
	 * @param context the call's context
	 * @param delay the wait before the next attempt
	 */
	default void onRetry(RetryContext context, Duration delay) {
	}

	/**
	 * Called once when the call ends, after recovery if any.
	 * @param context the call's context
	 * @param failure the exception the call ends with, or {@code null} when it returns normally
	 */
	default void close(RetryContext context, @Nullable Throwable failure) {
	}

}
