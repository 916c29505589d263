package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.Deadline;
import org.jspecify.annotations.Nullable;

/**
 * The first attempt of an async call, on the calling thread, with the thread's pooled context: an
 * attempt that succeeds at once returns its own future and allocates nothing; otherwise an
 * {@link AsyncRetry} takes over, on a copy of the context. A plain instance's attempt is run here; a
 * guarded one's by {@link FirstAttempt}, and a hedging one's by {@link HedgedCall}'s. Stateless.
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
		// Under a deadline, the guarded path: it sets the call's deadline and carries it to every attempt.
		if (!runtime.plain || Deadline.current() != null) {
			if (runtime.hedges != null) {
				return HedgedCall.start(runtime, supplier, recovery);
			}
			return GUARDED.start(runtime, supplier, recovery);
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

	/** The first attempt of a guarded call ({@link FirstAttempt}), handing over to an {@link AsyncRetry}. */
	private static final FirstAttempt GUARDED = new FirstAttempt() {

		@Override
		<T> CompletableFuture<T> newCall(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
				@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
			return create(runtime, supplier, recovery, context);
		}

		@Override
		<T> void refused(CompletableFuture<T> call, ThreadCounters block, long reason) {
			((AsyncRetry<T>) call).end(block, reason, null);
		}

		@Override
		long decide(RetryRuntime runtime, MutableRetryContext pooled, ThreadCounters block, @Nullable Object value) {
			return CallLifecycle.afterAttempt(runtime, pooled, block, null, value);
		}

		@Override
		<T> void carryOn(CompletableFuture<T> call, ThreadCounters block, long decision, @Nullable T value) {
			AsyncRetry<T> retry = (AsyncRetry<T>) call;
			retry.tookOver(2);
			retry.proceed(block, decision, value);
		}

		@Override
		<T> void carryOn(CompletableFuture<T> call, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
			AsyncRetry<T> retry = (AsyncRetry<T>) call;
			retry.tookOver(1);
			retry.started(stage, thrown, 1);
		}

	};

	/** Continues a call whose first attempt did not complete at once, or failed. */
	private static <T> CompletableFuture<T> continueAfterFirstAttempt(RetryRuntime runtime,
			Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, ContextStack stack,
			MutableRetryContext pooled, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown) {
		AsyncRetry<T> call;
		try {
			call = create(runtime, supplier, recovery, pooled.copy());
		}
		finally {
			stack.popPooled(pooled);
		}
		GUARDED.carryOn(call, stage, thrown);
		return call;
	}

}
