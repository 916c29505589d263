package dev.retrykit.internal;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RecoveryCallback;
import dev.retrykit.RetryCallback;
import dev.retrykit.RetryContext;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryFunction;
import dev.retrykit.RetryState;
import dev.retrykit.RetryVetoedException;
import org.jspecify.annotations.Nullable;

/**
 * The synchronous loops: stateless (attempts in one call, waiting through the sleeper) and stateful
 * (one attempt per call, the count kept in the context cache). Stateless: a successful first attempt
 * allocates nothing (the context is pooled per thread and counting is a plain store).
 *
 * <p>When the user's code in a decision (result predicate, classifiers, delay-hint extractor, policy,
 * backoff) throws, the call ends with that exception, counted as failed and with its listeners closed,
 * as an async call does.
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
	public static <T, E extends Throwable> T execute(RetryRuntime runtime, RetryCallback<T, E> callback,
			@Nullable RecoveryCallback<T> recovery) throws E {
		return execute(runtime, (RetryFunction<RetryCallback<T, E>, T, E>) (RetryFunction<?, ?, ?>) CALLBACK, callback,
				recovery);
	}

	/**
	 * Runs a stateless call whose attempt takes an argument, so that a caller passes its state without
	 * a capturing lambda per call.
	 * <p>When the instance has nothing that watches a successful attempt (no breaker, budget,
	 * listener, deadline or result predicate), the first attempt takes a short path: push the pooled
	 * context, run, count, pop (the attempt is counted when it ends). Anything else, and every
	 * failure, continues out of line.
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
	public static <A, T, E extends Throwable> T execute(RetryRuntime runtime, RetryFunction<? super A, T, E> attempt,
			A argument, @Nullable RecoveryCallback<T> recovery) throws E {
		if (!runtime.plain) {
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

	private static <A, T, E extends Throwable> T executeGuarded(RetryRuntime runtime,
			RetryFunction<? super A, T, E> attempt, A argument, @Nullable RecoveryCallback<T> recovery) throws E {
		ContextStack stack = ContextStack.get();
		MutableRetryContext context = stack.pushPooled(runtime.name);
		try {
			ThreadCounters block = stack.counters(runtime);
			if (!runtime.open(context)) {
				throw vetoed(runtime, context);
			}
			return loop(runtime, attempt, argument, recovery, context, block);
		}
		catch (Throwable failure) {
			throw Sneaky.<E>rethrow(failure);
		}
		finally {
			stack.popPooled(context);
		}
	}

	private static <A, T, E extends Throwable> T retryAfterFirstFailure(RetryRuntime runtime,
			RetryFunction<? super A, T, E> attempt, A argument, @Nullable RecoveryCallback<T> recovery,
			ContextStack stack, MutableRetryContext context, Throwable firstFailure) throws E {
		try {
			ThreadCounters block = stack.counters(runtime);
			block.attempt();
			long decision = decide(runtime, context, block, firstFailure, null);
			if (decision < 0) {
				return stop(runtime, context, block, decision, recovery);
			}
			runtime.sleep(context, block, decision);
			return loop(runtime, attempt, argument, recovery, context, block);
		}
		catch (Throwable failure) {
			throw Sneaky.<E>rethrow(failure);
		}
		finally {
			stack.popPooled(context);
		}
	}

	private static <A, T> T loop(RetryRuntime runtime, RetryFunction<? super A, T, ?> attempt, A argument,
			@Nullable RecoveryCallback<T> recovery, MutableRetryContext context, ThreadCounters block) throws Throwable {
		for (;;) {
			if (!runtime.acquireAttempt(context, block)) {
				return rejected(runtime, context, block, recovery);
			}
			T result;
			try {
				result = attempt.apply(argument, context);
			}
			catch (Throwable failure) {
				long decision = decide(runtime, context, block, failure, null);
				if (decision < 0) {
					return stop(runtime, context, block, decision, recovery);
				}
				runtime.sleep(context, block, decision);
				continue;
			}
			if (accepts(runtime, context, block, result)) {
				runtime.onSuccess(context, block, result);
				return result;
			}
			long decision = decide(runtime, context, block, null, result);
			if (decision < 0) {
				return stop(runtime, context, block, decision, recovery);
			}
			runtime.sleep(context, block, decision);
		}
	}

	/**
	 * Runs one attempt of a stateful call.
	 * @param runtime the instance
	 * @param callback the operation
	 * @param recovery the fallback, or {@code null}
	 * @param state the state that selects the cached context
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the result
	 * @throws E the attempt's failure (the caller rolls back; the next call continues), or
	 * {@link ExhaustedRetryException} when a previous call exhausted the retries and there is no recovery
	 */
	public static <T, E extends Throwable> T executeStateful(RetryRuntime runtime, RetryCallback<T, E> callback,
			@Nullable RecoveryCallback<T> recovery, RetryState state) throws E {
		ContextStack stack = ContextStack.get();
		MutableRetryContext.Stateful context = cachedContext(runtime, state, stack.top());
		boolean fresh = context == null;
		if (context == null) {
			context = new MutableRetryContext.Stateful(runtime.name, stack.top());
		}
		stack.push(context);
		try {
			ThreadCounters block = stack.counters(runtime);
			if (fresh ? !runtime.open(context) : !runtime.listeners.isEmpty() && !runtime.listeners.open(context)) {
				throw vetoed(runtime, context);
			}
			if (context.isExhaustedOnly()) {
				runtime.cache.remove(state.key());
				return exhausted(runtime, context, block, recovery);
			}
			waitUntilDue(runtime, context, block);
			for (;;) {
				if (!runtime.acquireAttempt(context, block)) {
					return rejected(runtime, context, block, recovery);
				}
				T result;
				try {
					result = callback.doWithRetry(context);
				}
				catch (Throwable failure) {
					long decision = decide(runtime, context, block, failure, null);
					if (decision >= 0 && !rollsBack(runtime, context, block, state, failure)) {
						runtime.sleep(context, block, decision);
						continue;
					}
					if (decision == RetryRuntime.STOP_NOT_RETRYABLE) {
						runtime.cache.remove(state.key());
						return stop(runtime, context, block, decision, recovery);
					}
					if (decision >= 0 || decision == RetryRuntime.STOP_CIRCUIT_OPEN) {
						decision = Math.max(0, decision);
						context.notBeforeNanos = runtime.timeSource.nanoTime() + decision;
						runtime.counters.event(RetryEventType.STATEFUL_RETHROW, context.getRetryCount(), failure, decision);
					}
					else {
						context.setExhaustedOnly();
					}
					runtime.cache.put(state.key(), context);
					runtime.close(context, failure);
					throw failure;
				}
				if (accepts(runtime, context, block, result)) {
					runtime.cache.remove(state.key());
					runtime.onSuccess(context, block, result);
					return result;
				}
				long decision = decide(runtime, context, block, null, result);
				if (decision < 0) {
					runtime.cache.remove(state.key());
					return stop(runtime, context, block, decision, recovery);
				}
				runtime.sleep(context, block, decision);
			}
		}
		catch (Throwable failure) {
			throw Sneaky.<E>rethrow(failure);
		}
		finally {
			stack.pop();
		}
	}

	/** {@link RetryRuntime#onFailure}, ending the call if the user's code in the decision throws. */
	private static long decide(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			@Nullable Throwable failure, @Nullable Object result) throws Throwable {
		try {
			return runtime.onFailure(context, failure, result);
		}
		catch (Throwable ex) {
			throw runtime.onBrokenDecision(context, block, ex, failure);
		}
	}

	/** {@link RetryRuntime#isAccepted}, ending the call if the result predicate throws. */
	private static boolean accepts(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			@Nullable Object result) throws Throwable {
		try {
			return runtime.isAccepted(result);
		}
		catch (Throwable ex) {
			throw runtime.onBrokenDecision(context, block, ex, null);
		}
	}

	/** Whether a stateful call rethrows this failure at once; ends the call if the classifier throws. */
	private static boolean rollsBack(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			RetryState state, Throwable failure) throws Throwable {
		try {
			return state.rollbackFor().test(failure);
		}
		catch (Throwable ex) {
			throw runtime.onBrokenDecision(context, block, ex, failure);
		}
	}

	private static MutableRetryContext.@Nullable Stateful cachedContext(RetryRuntime runtime, RetryState state,
			@Nullable RetryContext parent) {
		if (state.forceRefresh()) {
			return null;
		}
		RetryContext cached = runtime.cache.get(state.key());
		if (cached == null) {
			return null;
		}
		MutableRetryContext.Stateful context;
		if (cached instanceof MutableRetryContext.Stateful stateful) {
			context = stateful;
		}
		else {
			context = new MutableRetryContext.Stateful(runtime.name, parent);
			context.restore(cached.getRetryCount(), cached.getLastThrowable(), cached.isExhaustedOnly());
			// A foreign cache keeps no start time: max-duration counts from this call, not from time 0.
			context.startNanos = runtime.timeSource.nanoTime();
		}
		context.setParent(parent);
		return context;
	}

	private static void waitUntilDue(RetryRuntime runtime, MutableRetryContext.Stateful context, ThreadCounters block) {
		if (context.notBeforeNanos != 0) {
			long wait = context.notBeforeNanos - runtime.timeSource.nanoTime();
			context.notBeforeNanos = 0;
			runtime.sleep(context, block, wait);
		}
	}

	private static <T> T exhausted(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			@Nullable RecoveryCallback<T> recovery) throws Throwable {
		runtime.onStop(context, block, RetryRuntime.STOP_EXHAUSTED);
		if (recovery != null) {
			return recover(runtime, context, block, recovery);
		}
		Throwable last = context.getLastThrowable();
		ExhaustedRetryException exhausted = new ExhaustedRetryException("Retry '" + runtime.name
				+ "' exhausted after " + context.getRetryCount() + " failed attempts of a stateful call"
				+ ((last != null) ? "; the cause is the last failure" : ""), last);
		runtime.close(context, exhausted);
		throw exhausted;
	}

	@SuppressWarnings("unchecked")
	private static <T> T stop(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block, long reason,
			@Nullable RecoveryCallback<T> recovery) throws Throwable {
		if (reason == RetryRuntime.STOP_CIRCUIT_OPEN) {
			return rejected(runtime, context, block, recovery);
		}
		runtime.onStop(context, block, reason);
		if (recovery != null) {
			return recover(runtime, context, block, recovery);
		}
		Throwable last = context.getLastThrowable();
		if (last == null) {
			runtime.close(context, null);
			return (T) context.getLastResult();
		}
		runtime.close(context, last);
		throw last;
	}

	private static <T> T rejected(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			@Nullable RecoveryCallback<T> recovery) throws Throwable {
		RuntimeException rejection = runtime.onCircuitRejection(context, block);
		if (recovery != null) {
			return recover(runtime, context, block, recovery);
		}
		runtime.close(context, rejection);
		throw rejection;
	}

	private static <T> T recover(RetryRuntime runtime, MutableRetryContext context, ThreadCounters block,
			RecoveryCallback<T> recovery) throws Throwable {
		T result;
		try {
			result = recovery.recover(context);
		}
		catch (Throwable failure) {
			runtime.close(context, failure);
			throw failure;
		}
		runtime.onRecovered(context, block);
		runtime.close(context, null);
		return result;
	}

	private static RetryVetoedException vetoed(RetryRuntime runtime, MutableRetryContext context) {
		RetryVetoedException vetoed = new RetryVetoedException(
				"Retry '" + runtime.name + "' was vetoed by a listener before its first attempt");
		runtime.close(context, vetoed);
		return vetoed;
	}

}
