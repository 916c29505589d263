package dev.retrykit.internal;

import java.util.Objects;

import dev.retrykit.ExhaustedRetryException;
import dev.retrykit.RecoveryCallback;
import dev.retrykit.RetryCallback;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryState;
import org.jspecify.annotations.Nullable;

/**
 * The stateful engine: Spring Retry's semantics on top of {@link CallLifecycle}.
 * <ul>
 * <li>Every failure the state's rollback classifier rolls back for is rethrown by the call in which
 * it happened, also a non-retryable one and the last allowed attempt's; the context stays cached,
 * marked with its failure, and exhausted when it can no longer retry.
 * <li>The next call with the key, once the context can no longer retry, does not run the operation:
 * it recovers, or throws {@link ExhaustedRetryException} (cause: the last failure), and removes the key.
 * <li>A failure the classifier does not roll back for is handled like a stateless one within the call.
 * </ul>
 * A context in the cache is never changed: each call works on a copy and records its failures with
 * {@link dev.retrykit.spi.RetryContextCache#update}, so concurrent calls with one key lose no count.
 */
public final class StatefulRetry {

	private StatefulRetry() {
	}

	/**
	 * Runs a stateful call.
	 * @param runtime the instance
	 * @param callback the operation
	 * @param recovery the fallback, or {@code null}
	 * @param state the state that selects the cached context
	 * @param <T> the result type
	 * @param <E> the checked exception type
	 * @return the result
	 * @throws E the attempt's failure when the caller is to roll back, or
	 * {@link ExhaustedRetryException} when the context can no longer retry and there is no recovery
	 */
	public static <T extends @Nullable Object, E extends Throwable> T execute(RetryRuntime runtime,
			RetryCallback<T, E> callback, @Nullable RecoveryCallback<T> recovery, RetryState state) throws E {
		ContextStack stack = ContextStack.get();
		RetryContext parent = stack.top();
		MutableRetryContext.Stateful cached = cachedCopy(runtime, state, parent);
		boolean fresh = cached == null;
		MutableRetryContext.Stateful context = (cached != null) ? cached
				: new MutableRetryContext.Stateful(runtime.name, parent);
		int startCount = context.getRetryCount();
		stack.push(context);
		try {
			ThreadCounters block = stack.counters(runtime);
			if (fresh ? !CallOpening.open(runtime, context, callback)
					: !CallOpening.openContinued(runtime, context, callback)) {
				throw CallOpening.vetoed(runtime, context, "Stateful retry");
			}
			if (context.isExhaustedOnly() || runtime.attemptsUsedUp(startCount)) {
				runtime.cache.remove(state.key());
				return exhausted(runtime, context, block, recovery);
			}
			if (CallDeadlines.passedAtOpen(runtime, context)) {
				// Refused before it ran, as by an open circuit: the cached state stays for the next call.
				return SyncRetry.finish(runtime, context, block, Decision.STOP_DEADLINE, recovery);
			}
			long decision = waitUntilDue(runtime, context);
			for (;;) {
				if (CallLifecycle.sleep(runtime, context, decision) == Decision.STOP_WAIT_INTERRUPTED) {
					return SyncRetry.finish(runtime, context, block, Decision.STOP_WAIT_INTERRUPTED, recovery);
				}
				if (!CallLifecycle.acquireAttempt(runtime, context, block)) {
					// Refused before it ran: the cached count stays as it is for the next call.
					return SyncRetry.finish(runtime, context, block, Decision.STOP_CIRCUIT_OPEN, recovery);
				}
				T result = null;
				Throwable failure = null;
				try {
					result = callback.doWithRetry(context);
				}
				catch (Throwable ex) {
					failure = ex;
				}
				CallLifecycle.attemptReturned(runtime, context);
				decision = CallLifecycle.afterAttempt(runtime, context, block, failure, result);
				if (decision == Decision.ACCEPTED) {
					runtime.cache.remove(state.key());
					return SyncRetry.returned(result);
				}
				if (failure != null && decision != Decision.STOP_BROKEN && decision != Decision.STOP_INTERRUPTED) {
					long rollback = CallLifecycle.rollback(runtime, context, state.rollbackFor(), failure);
					if (rollback == Decision.ROLL_BACK) {
						throw rethrowForRollback(runtime, context, block, state, startCount, failure, decision);
					}
					if (rollback == Decision.STOP_BROKEN) {
						decision = rollback;
					}
				}
				if (!Decision.isDelay(decision)) {
					if (decision != Decision.STOP_BROKEN && decision != Decision.STOP_INTERRUPTED) {
						// Ended within the call, as a stateless call ends: nothing is left for the next one.
						runtime.cache.remove(state.key());
					}
					return SyncRetry.finish(runtime, context, block, decision, recovery);
				}
			}
		}
		catch (Throwable failure) {
			throw Sneaky.<E>rethrow(failure);
		}
		finally {
			stack.pop();
		}
	}

	/** The cached context of the key, copied for this call, or {@code null} for a fresh one. */
	private static MutableRetryContext.@Nullable Stateful cachedCopy(RetryRuntime runtime, RetryState state,
			@Nullable RetryContext parent) {
		if (state.forceRefresh()) {
			return null;
		}
		RetryContext cached = runtime.cache.get(state.key());
		if (cached == null) {
			return null;
		}
		if (cached instanceof MutableRetryContext.Stateful stateful) {
			return stateful.copy(parent);
		}
		MutableRetryContext.Stateful context = new MutableRetryContext.Stateful(runtime.name, parent);
		context.restore(cached.getRetryCount(), cached.getLastThrowable(), cached.isExhaustedOnly());
		for (String attribute : cached.attributeNames()) {
			context.setAttribute(attribute, cached.getAttribute(attribute));
		}
		// A foreign cache keeps no start time: max-duration counts from this call, not from time 0.
		context.keyDeadlineNanos = (runtime.maxDurationNanos == 0) ? CallDeadlines.NONE
				: CallDeadlines.fromNow(runtime.timeSource.nanoTime(), runtime.maxDurationNanos);
		return context;
	}

	/** @return how long the call waits before its first attempt: the rest of the backoff a previous call with the key left */
	private static long waitUntilDue(RetryRuntime runtime, MutableRetryContext.Stateful context) {
		if (context.notBeforeNanos == 0) {
			return 0;
		}
		long wait = context.notBeforeNanos - runtime.timeSource.nanoTime();
		context.notBeforeNanos = 0;
		return Math.max(0, wait);
	}

	/**
	 * Records a failure the caller rolls back for and returns it to rethrow: the next call waits out
	 * the backoff ({@code decision} is a delay, or the circuit is open), or finds the context exhausted
	 * (any other stop: it can no longer retry). Either way the call is a failed call, counted as the
	 * observation of the call reports it, and its failure is a {@code STATEFUL_RETHROW} event (with no
	 * delay when the next call will find the context exhausted). A stop by this call's caller's
	 * {@link dev.retrykit.Deadline} alone ends this call only: the key's next call waits out the backoff.
	 */
	private static Throwable rethrowForRollback(RetryRuntime runtime, MutableRetryContext.Stateful context,
			ThreadCounters block, RetryState state, int startCount, Throwable failure, long reason) {
		long decision = reason;
		if (reason == Decision.STOP_DEADLINE && (context.keyDeadlineNanos == CallDeadlines.NONE
				|| context.keyDeadlineNanos - runtime.timeSource.nanoTime() > context.previousDelayNanos)) {
			// The backoff (decided before the deadline check) fits in the key's max-duration, if any.
			decision = context.previousDelayNanos;
		}
		long wait = 0;
		if (Decision.isDelay(decision) || decision == Decision.STOP_CIRCUIT_OPEN) {
			wait = Math.max(0, decision);
			context.notBeforeNanos = runtime.timeSource.nanoTime() + wait;
		}
		else {
			context.setExhaustedOnly();
		}
		runtime.counters.event(RetryEventType.STATEFUL_RETHROW, context.getRetryCount(), failure, wait);
		int failures = context.getRetryCount() - startCount;
		runtime.cache.update(state.key(), current -> merged(runtime, current, context, failures));
		CallEnding.rethrownForRollback(runtime, context, block, failure, reason);
		return failure;
	}

	/**
	 * What the cache keeps after this call: this call's context, with its failures added to the count
	 * cached now (other calls with the key may have added theirs since this one read it), exhausted
	 * when either says so or the attempts are used up.
	 */
	private static RetryContext merged(RetryRuntime runtime, @Nullable RetryContext current,
			MutableRetryContext.Stateful context, int failures) {
		MutableRetryContext.Stateful next = context.copy(null);
		if (current != null) {
			int count = (int) Math.min(Integer.MAX_VALUE, (long) current.getRetryCount() + failures);
			boolean exhausted = context.isExhaustedOnly() || current.isExhaustedOnly()
					|| runtime.attemptsUsedUp(count);
			next.restore(count, context.getLastThrowable(), exhausted);
		}
		return next;
	}

	private static <T extends @Nullable Object> T exhausted(RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block, @Nullable RecoveryCallback<T> recovery) throws Throwable {
		return CallEnding.finish(runtime, context, block, Decision.STOP_EXHAUSTED, null, true,
				ExhaustedEnding.<T>instance(), recovery);
	}

	/**
	 * The end of a call that finds its context exhausted: recovers here, else fails with
	 * {@link ExhaustedRetryException} whose cause is the last failure.
	 */
	private static final class ExhaustedEnding<T extends @Nullable Object> extends SyncRetry.SyncEnding<T> {

		private static final ExhaustedEnding<?> INSTANCE = new ExhaustedEnding<>();

		@SuppressWarnings("unchecked")
		static <T extends @Nullable Object> ExhaustedEnding<T> instance() {
			return (ExhaustedEnding<T>) INSTANCE;
		}

		@Override
		public Throwable failure(@Nullable RecoveryCallback<T> recovery, MutableRetryContext context,
				@Nullable Throwable last) {
			return new ExhaustedRetryException("Retry '" + context.getName() + "' exhausted after "
					+ context.getRetryCount() + " failed attempts of a stateful call"
					+ ((last != null) ? "; the cause is the last failure" : ""), last);
		}

		@Override
		public T fail(@Nullable RecoveryCallback<T> recovery, MutableRetryContext context, @Nullable Throwable failure)
				throws Throwable {
			throw Objects.requireNonNull(failure);
		}

	}

}
