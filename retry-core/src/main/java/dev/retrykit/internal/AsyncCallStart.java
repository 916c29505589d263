package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The first attempt of an async call, on the calling thread, with the thread's pooled context: an
 * attempt that succeeds at once returns its own future and allocates nothing; otherwise an
 * {@link AsyncRetry} takes over, on a copy of the context. Stateless.
 */
final class AsyncCallStart {

	private AsyncCallStart() {
	}

	private static <T> AsyncRetry<T> create(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
		return (recovery != null) ? new AsyncRetryWithRecovery<>(runtime, supplier, recovery, context)
				: new AsyncRetry<>(runtime, supplier, context);
	}

	/** Starts an asynchronous call, as {@link AsyncRetry#start} says. */
	static <T> CompletableFuture<T> start(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		if (!runtime.plain) {
			if (runtime.hedges != null) {
				return HedgedCall.start(runtime, runtime.hedges, supplier, recovery);
			}
			return startGuarded(runtime, supplier, recovery);
		}
		// Nothing watches a successful attempt (see RetryRuntime.plain): push, run, count, pop.
		ContextStack stack = ContextStack.get();
		MutableRetryContext pooled = stack.pushPooled(runtime.name);
		CompletionStage<T> stage = null;
		Throwable thrown = null;
		try {
			stage = supplier.get();
		}
		catch (Throwable ex) {
			thrown = ex;
		}
		ThreadCounters block = stack.counters(runtime);
		CompletableFuture<T> future = AttemptStages.readable(stage);
		if (future != null && future.isDone() && !future.isCompletedExceptionally()) {
			block.plainSuccess();
			stack.popPooled(pooled);
			return future;
		}
		block.attempt();
		return continueAfterFirstAttempt(runtime, supplier, recovery, stack, pooled, stage, thrown);
	}

	private static <T> CompletableFuture<T> startGuarded(RetryRuntime runtime,
			Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		ContextStack stack = ContextStack.get();
		MutableRetryContext pooled = stack.pushPooled(runtime.name);
		CompletionStage<T> stage = null;
		Throwable thrown = null;
		boolean continues = false;
		try {
			ThreadCounters block = stack.counters(runtime);
			if (!CallLifecycle.open(runtime, pooled, supplier)) {
				return CompletableFuture.failedFuture(CallLifecycle.vetoed(runtime, pooled, "Retry"));
			}
			if (!CallLifecycle.acquireAttempt(runtime, pooled, block)) {
				AsyncRetry<T> call = create(runtime, supplier, recovery, pooled.copy());
				call.end(block, CallLifecycle.STOP_CIRCUIT_OPEN, null);
				return call;
			}
			try {
				stage = supplier.get();
			}
			catch (Throwable ex) {
				thrown = ex;
			}
			CallLifecycle.attemptReturned(runtime, pooled);
			CompletableFuture<T> future = AttemptStages.readable(stage);
			if (future != null && future.isDone() && !future.isCompletedExceptionally()) {
				T value = future.getNow(null);
				long decision = CallLifecycle.afterAttempt(runtime, pooled, block, null, value);
				if (decision == CallLifecycle.ACCEPTED) {
					return future;
				}
				// The predicate runs once per result: a rejected one goes straight to what the decision says.
				continues = true;
				AsyncRetry<T> call = takeOver(runtime, supplier, recovery, stack, pooled, 2);
				call.proceed(block, decision, value);
				return call;
			}
			continues = true;
		}
		finally {
			if (!continues) {
				stack.popPooled(pooled);
			}
		}
		return continueAfterFirstAttempt(runtime, supplier, recovery, stack, pooled, stage, thrown);
	}

	/** Continues a call whose first attempt did not complete at once, or failed. */
	private static <T> CompletableFuture<T> continueAfterFirstAttempt(RetryRuntime runtime,
			Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, ContextStack stack,
			MutableRetryContext pooled, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
		AsyncRetry<T> call = takeOver(runtime, supplier, recovery, stack, pooled, 1);
		call.started(stage, thrown, 1);
		return call;
	}

	/**
	 * The call that carries on after the first attempt, on a copy of the pooled context (popped here);
	 * {@code phase} is 1 while that attempt runs, 2 once its outcome was taken.
	 */
	private static <T> AsyncRetry<T> takeOver(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, ContextStack stack,
			MutableRetryContext pooled, int phase) {
		try {
			AsyncRetry<T> call = create(runtime, supplier, recovery, pooled.copy());
			call.tookOver(phase);
			return call;
		}
		finally {
			stack.popPooled(pooled);
		}
	}

}
