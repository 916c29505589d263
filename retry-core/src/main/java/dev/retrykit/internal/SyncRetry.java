package dev.retrykit.internal;

import java.util.Objects;

import dev.retrykit.Deadline;
import dev.retrykit.RecoveryCallback;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryFunction;
import dev.retrykit.circuit.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * The synchronous engine: runs the attempts of a call on the calling thread and waits between them
 * through the sleeper; every decision is {@link CallLifecycle}'s. A successful first attempt allocates
 * nothing (the context is pooled per thread and counting is a plain store). Stateful calls are
 * {@link StatefulRetry}'s; the calls of an instance that hedges on an executor are
 * {@link HedgedBlockingCall}'s (without an executor, they retry here, one attempt after another).
 */
public final class SyncRetry {

	private SyncRetry() {
	}

	/** The attempt of {@link #execute(RetryRuntime, RetryCallback, RecoveryCallback)}: the callback is the argument. */
	private static final RetryFunction<RetryCallback<?, ?>, ?, Throwable> CALLBACK = RetryCallback::doWithRetry;

	/**
	 * Runs a stateless call.
	 * @param runtime the instance
	 * @param callback the operation
	 * @param recovery the fallback, or {@code null}
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the result
	 * @throws E the last failure, unchanged, when the call fails without recovery
	 */
	@SuppressWarnings("unchecked")
	public static <T extends @Nullable Object, E extends Throwable> T execute(RetryRuntime runtime,
			RetryCallback<T, E> callback, @Nullable RecoveryCallback<T> recovery) throws E {
		return execute(runtime, (RetryFunction<RetryCallback<T, E>, T, E>) (RetryFunction<?, ?, ?>) CALLBACK, callback,
				recovery);
	}

	/**
	 * Runs a stateless call whose attempt takes an argument, so that a caller passes its state without
	 * a capturing lambda per call.
	 * <p>When the instance has nothing that watches a successful attempt (no breaker, budget,
	 * listener, deadline or result predicate) and the thread runs under no {@link Deadline}, the first
	 * attempt takes a short path: push the pooled context, run, count, pop (the attempt is counted when
	 * it ends); when a circuit breaker is all it has, the path also takes the breaker's permit and reports
	 * the success. Anything else, and every failure, continues out of line.
	 * @param runtime the instance
	 * @param attempt the operation
	 * @param argument its argument
	 * @param recovery the fallback, or {@code null}
	 * @param <A> the argument type
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the result
	 * @throws E the last failure, unchanged, when the call fails without recovery
	 */
	public static <A, T extends @Nullable Object, E extends Throwable> T execute(RetryRuntime runtime,
			RetryFunction<? super A, T, E> attempt, A argument, @Nullable RecoveryCallback<T> recovery) throws E {
		// Deadline.current() compiles to a constant null until a deadline is first entered anywhere.
		if (!runtime.plain) {
			CircuitBreaker breaker = runtime.soleBreaker;
			return (breaker != null && Deadline.current() == null)
					? executeThroughBreaker(runtime, breaker, attempt, argument, recovery)
					: executeGuarded(runtime, attempt, argument, recovery);
		}
		if (Deadline.current() != null) {
			return executeGuarded(runtime, attempt, argument, recovery);
		}
		ContextStack stack = ContextStack.get();
		MutableRetryContext context = stack.pushPooled(runtime.name);
		T result;
		try {
			result = attempt.apply(argument, context);
		}
		catch (Throwable failure) {
			return retryAfterFirstFailure(runtime, attempt, argument, recovery, stack, context, failure);
		}
		// The attempt and the success in one count, once the attempt is over.
		stack.counters(runtime).plainSuccess();
		stack.popPooled(context);
		return result;
	}

	/**
	 * A call of an instance whose only guard is its circuit breaker ({@link RetryRuntime#soleBreaker}),
	 * under no caller's deadline: opening it does nothing, so the first attempt takes the breaker's permit,
	 * runs, and a success is reported and counted right here. A refusal and every failure continue through
	 * the lifecycle as in {@link #executeGuarded}.
	 */
	private static <A, T extends @Nullable Object, E extends Throwable> T executeThroughBreaker(RetryRuntime runtime,
			CircuitBreaker breaker, RetryFunction<? super A, T, E> attempt, A argument,
			@Nullable RecoveryCallback<T> recovery) throws E {
		ContextStack stack = ContextStack.get();
		MutableRetryContext context = stack.pushPooled(runtime.name);
		try {
			long permit = breaker.acquirePermission();
			if (permit == CircuitBreaker.NO_PERMISSION) {
				return finish(runtime, context, stack.counters(runtime), Decision.STOP_CIRCUIT_OPEN, recovery);
			}
			T result;
			try {
				result = attempt.apply(argument, context);
			}
			catch (Throwable failure) {
				context.permit = permit;
				return afterFirstFailure(runtime, attempt, argument, recovery, context, stack.counters(runtime), failure);
			}
			breaker.onSuccess(permit);
			// The attempt and the success in one count, as for a plain call.
			stack.counters(runtime).plainSuccess();
			return result;
		}
		catch (Throwable failure) {
			throw Sneaky.<E>rethrow(failure);
		}
		finally {
			stack.popPooled(context);
		}
	}

	private static <A, T extends @Nullable Object, E extends Throwable> T executeGuarded(RetryRuntime runtime,
			RetryFunction<? super A, T, E> attempt, A argument, @Nullable RecoveryCallback<T> recovery) throws E {
		Hedges hedges = runtime.hedges;
		if (hedges != null && hedges.executor != null) {
			try {
				return HedgedBlockingCall.execute(runtime, hedges.executor, attempt, argument, recovery,
						(attempt == CALLBACK) ? argument : attempt);
			}
			catch (Throwable failure) {
				throw Sneaky.<E>rethrow(failure);
			}
		}
		ContextStack stack = ContextStack.get();
		MutableRetryContext context = stack.pushPooled(runtime.name);
		try {
			ThreadCounters block = stack.counters(runtime);
			if (!CallOpening.open(runtime, context, (attempt == CALLBACK) ? argument : attempt)) {
				throw CallOpening.vetoed(runtime, context, "Retry");
			}
			if (CallDeadlines.passedAtOpen(runtime, context)) {
				return finish(runtime, context, block, Decision.STOP_DEADLINE, recovery);
			}
			return attempts(runtime, attempt, argument, recovery, context, block, 0);
		}
		catch (Throwable failure) {
			throw Sneaky.<E>rethrow(failure);
		}
		finally {
			stack.popPooled(context);
		}
	}

	private static <A, T extends @Nullable Object, E extends Throwable> T retryAfterFirstFailure(RetryRuntime runtime,
			RetryFunction<? super A, T, E> attempt, A argument, @Nullable RecoveryCallback<T> recovery,
			ContextStack stack, MutableRetryContext context, Throwable firstFailure) throws E {
		try {
			return afterFirstFailure(runtime, attempt, argument, recovery, context, stack.counters(runtime),
					firstFailure);
		}
		catch (Throwable failure) {
			throw Sneaky.<E>rethrow(failure);
		}
		finally {
			stack.popPooled(context);
		}
	}

	/** Counts a first attempt that failed, decides on it and carries on; the breaker's permit (if any) is in the context. */
	private static <A, T extends @Nullable Object> T afterFirstFailure(RetryRuntime runtime,
			RetryFunction<? super A, T, ?> attempt, A argument, @Nullable RecoveryCallback<T> recovery,
			MutableRetryContext context, ThreadCounters block, Throwable firstFailure) throws Throwable {
		block.attempt();
		long decision = CallLifecycle.afterAttempt(runtime, context, block, firstFailure, null);
		return attempts(runtime, attempt, argument, recovery, context, block, decision);
	}

	/**
	 * Waits as {@code decision} says and runs attempts until the lifecycle accepts one or stops.
	 * @param decision the delay before the next attempt (0 for the first), or a {@code STOP_*} reason
	 */
	private static <A, T extends @Nullable Object> T attempts(RetryRuntime runtime,
			RetryFunction<? super A, T, ?> attempt, A argument, @Nullable RecoveryCallback<T> recovery,
			MutableRetryContext context, ThreadCounters block, long decision) throws Throwable {
		for (;;) {
			if (!Decision.isDelay(decision)) {
				return finish(runtime, context, block, decision, recovery);
			}
			if (CallLifecycle.sleep(runtime, context, decision) == Decision.STOP_WAIT_INTERRUPTED) {
				return finish(runtime, context, block, Decision.STOP_WAIT_INTERRUPTED, recovery);
			}
			if (!CallLifecycle.acquireAttempt(runtime, context, block)) {
				return finish(runtime, context, block, Decision.STOP_CIRCUIT_OPEN, recovery);
			}
			T result = null;
			Throwable failure = null;
			try {
				result = attempt.apply(argument, context);
			}
			catch (Throwable ex) {
				failure = ex;
			}
			CallLifecycle.attemptReturned(runtime, context);
			decision = CallLifecycle.afterAttempt(runtime, context, block, failure, result);
			if (decision == Decision.ACCEPTED) {
				return returned(result);
			}
		}
	}

	/**
	 * Ends a call that did not succeed, on the calling thread: recovers when the lifecycle allows it,
	 * else throws what the call ends with (the last failure, unchanged) or returns the last rejected
	 * result.
	 */
	static <T extends @Nullable Object> T finish(RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block, long reason, @Nullable RecoveryCallback<T> recovery) throws Throwable {
		return CallEnding.finish(runtime, context, block, reason, null, true, SyncEnding.<T>instance(), recovery);
	}

	/**
	 * {@return what an attempt returned}, read from a variable that holds {@code null} until an attempt
	 * returns: a {@code T}, so {@code null} only where {@code T} is a nullable type.
	 */
	@SuppressWarnings("NullAway") // read only once an attempt returned (accepted, or the last rejected result)
	static <T extends @Nullable Object> T returned(@Nullable T result) {
		return result;
	}

	/**
	 * A synchronous call's end: the recovery runs here, the failure is thrown (or the last result
	 * returned). Open for the stateful engine's end, which fails otherwise.
	 */
	static class SyncEnding<T extends @Nullable Object>
			implements CallEnding.Ending<T, @Nullable RecoveryCallback<T>> {

		private static final SyncEnding<?> INSTANCE = new SyncEnding<>();

		@SuppressWarnings("unchecked")
		static <T extends @Nullable Object> SyncEnding<T> instance() {
			return (SyncEnding<T>) INSTANCE;
		}

		@Override
		public boolean hasRecovery(@Nullable RecoveryCallback<T> recovery) {
			return recovery != null;
		}

		@Override
		public T recover(@Nullable RecoveryCallback<T> recovery, RetryRuntime runtime, MutableRetryContext context,
				ThreadCounters block, @Nullable Throwable failure) throws Throwable {
			return CallEnding.recoverHere(runtime, context, block, Objects.requireNonNull(recovery));
		}

		@Override
		@SuppressWarnings("unchecked")
		public T fail(@Nullable RecoveryCallback<T> recovery, MutableRetryContext context, @Nullable Throwable failure)
				throws Throwable {
			if (failure == null) {
				return returned((T) context.getLastResult());
			}
			throw failure;
		}

	}

}
