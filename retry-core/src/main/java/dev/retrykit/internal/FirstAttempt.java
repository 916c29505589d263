package dev.retrykit.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The first attempt of a guarded async call (one that listeners, a circuit breaker, a budget, a result
 * predicate or hedging watch), on the calling thread with the thread's pooled context: open the call,
 * take the circuit's permit, run the supplier, and decide on a result that is already there. An attempt
 * accepted at once returns its own future and allocates nothing. Every other first attempt hands over to
 * a call object on a copy of the context, after the pooled context is popped.
 *
 * <p>The engines differ only in that call object and in how it carries on ({@link AsyncRetry}: one
 * attempt at a time; {@link HedgedCall}: copies side by side), which each says by implementing the
 * hooks; the sequence itself is written here once. Implementations are stateless singletons.
 */
abstract class FirstAttempt {

	/**
	 * Starts a call with its first attempt on this thread.
	 * @param runtime the instance
	 * @param supplier the attempts
	 * @param recovery the recovery, or {@code null}
	 * @return the first attempt's own future when it was accepted at once, else the call's
	 */
	final <T> CompletableFuture<T> start(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery) {
		ContextStack stack = ContextStack.get();
		MutableRetryContext pooled = stack.pushPooled(runtime.name);
		ThreadCounters block;
		CompletableFuture<T> call;
		CompletionStage<T> stage = null;
		Throwable thrown = null;
		boolean decided = false;
		long decision = Decision.ACCEPTED;
		T value = null;
		try {
			block = stack.counters(runtime);
			if (!CallOpening.open(runtime, pooled, supplier)) {
				return CompletableFuture.failedFuture(CallOpening.vetoed(runtime, pooled, "Retry"));
			}
			long refusal = CallDeadlines.passedAtOpen(runtime, pooled) ? Decision.STOP_DEADLINE
					: CallLifecycle.acquireAttempt(runtime, pooled, block) ? 0 : Decision.STOP_CIRCUIT_OPEN;
			if (refusal != 0) {
				call = newCall(runtime, supplier, recovery, pooled.copy());
				refused(call, block, refusal);
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
				value = future.getNow(null);
				decision = decide(runtime, pooled, block, value);
				if (decision == Decision.ACCEPTED) {
					return future;
				}
				// The predicate runs once per result: a rejected one goes straight to what the decision says.
				decided = true;
			}
			call = newCall(runtime, supplier, recovery, pooled.copy());
		}
		finally {
			stack.popPooled(pooled);
		}
		if (decided) {
			carryOn(call, block, decision, value);
		}
		else {
			carryOn(call, stage, thrown);
		}
		return call;
	}

	/**
	 * The call that carries on after the first attempt; not yet published.
	 * @param context a copy of the pooled context, owned by the call
	 */
	abstract <T> CompletableFuture<T> newCall(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context);

	/**
	 * Ends {@code call}, whose first attempt did not run: the circuit breaker refused it
	 * ({@link Decision#STOP_CIRCUIT_OPEN}), or the caller's deadline had passed
	 * ({@link Decision#STOP_DEADLINE}); the pooled context is still pushed.
	 */
	abstract <T> void refused(CompletableFuture<T> call, ThreadCounters block, long reason);

	/**
	 * Decides on the first attempt's result, which was there when its supplier returned.
	 * @return the decision: {@link Decision#ACCEPTED}, a delay or a {@code STOP_*} reason
	 */
	abstract long decide(RetryRuntime runtime, MutableRetryContext pooled, ThreadCounters block, @Nullable Object value);

	/** Carries {@code call} on from a decision other than accepted on the first attempt's result. */
	abstract <T> void carryOn(CompletableFuture<T> call, ThreadCounters block, long decision, @Nullable T value);

	/** Carries {@code call} on from a first attempt whose stage was not done, or failed, or whose supplier threw. */
	abstract <T> void carryOn(CompletableFuture<T> call, @Nullable CompletionStage<T> stage, @Nullable Throwable thrown);

}
