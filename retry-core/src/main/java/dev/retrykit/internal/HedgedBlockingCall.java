package dev.retrykit.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.RecoveryCallback;
import dev.retrykit.RetryContext;
import dev.retrykit.RetryFunction;
import dev.retrykit.RetryInterruptedException;
import org.jspecify.annotations.Nullable;

/**
 * A hedged blocking call: the {@link HedgedCall} engine, each copy a {@link BlockingCopyTask} on the
 * executor of the instance's hedging policy, and the calling thread waiting for the outcome. So the
 * decisions (when a copy starts, which wins, budget tokens, circuit permits, events, {@code retry.hedges}
 * counts, recovery) are the async engine's; only how a copy runs and how the caller waits differ.
 *
 * <ul>
 * <li>Every copy runs on the executor, the first included, so that the caller can stop waiting for it
 * when another copy wins. Copy k sees a context of its own as {@link RetryContext#current()} (and as
 * the attempt's argument): retry count k − 1, attribute {@value HedgeCopy#HEDGED} {@code true} for
 * k &gt; 1.
 * <li>A copy that lost, or that was in flight when the call ended otherwise, has its thread
 * interrupted; its outcome is ignored.
 * <li>An executor that refuses a copy fails that copy with its
 * {@link java.util.concurrent.RejectedExecutionException}, classified as any failure: the call goes on
 * with its other copies, or ends with it; it never waits for a copy that was not sent.
 * <li>The call ends as a synchronous one does: with the winner's result, the recovery's result, the last
 * failure unchanged (an {@link Error} of a copy included), or the last rejected result.
 * <li>The caller interrupted while it waits cancels the call (every copy in flight is interrupted, no
 * further copy starts) and gets a {@link RetryInterruptedException}, the thread's interrupt flag set
 * again; unless the call had already ended, whose outcome it then gets, the flag set.
 * </ul>
 * The recovery runs on the thread that ends the call: a copy's thread, or the caller's when no copy
 * could start. Stateless.
 */
final class HedgedBlockingCall {

	private HedgedBlockingCall() {
	}

	/**
	 * Runs a hedged blocking call and waits for its outcome.
	 * @param executor the executor of the instance's hedging policy
	 * @return the winner's or the recovery's result, or the last rejected result
	 * @throws Throwable the call's failure, unchanged
	 */
	static <A, T> T execute(RetryRuntime runtime, Executor executor,
			RetryFunction<? super A, T, ?> attempt, A argument, @Nullable RecoveryCallback<T> recovery)
			throws Throwable {
		String name = runtime.name;
		Supplier<CompletionStage<T>> copies = () -> {
			BlockingCopyTask<A, T> copy = new BlockingCopyTask<>(attempt, argument, copyContext(name));
			executor.execute(copy);
			return copy;
		};
		CompletableFuture<T> call = HedgedCall.start(runtime, copies,
				(recovery != null) ? recovering(recovery) : null);
		try {
			return call.get();
		}
		catch (ExecutionException ex) {
			throw ex.getCause();
		}
		catch (InterruptedException ex) {
			return interrupted(name, call);
		}
	}

	/**
	 * The context a copy's attempt sees on the executor's thread. The engine has pushed the copy's
	 * context on this thread: a copy after the first has one of its own, handed over as it is; the first
	 * copy's is the calling thread's pooled context, whose state is copied into a fresh one.
	 */
	private static MutableRetryContext copyContext(String name) {
		RetryContext current = ContextStack.current();
		if (current instanceof MutableRetryContext context && context.getAttribute(HedgeCopy.HEDGED) != null) {
			return context;
		}
		MutableRetryContext first = new MutableRetryContext(name, (current != null) ? current.getParent() : null);
		if (current != null) {
			first.restore(current.getRetryCount(), current.getLastThrowable(), false);
		}
		return first;
	}

	/** The recovery as the engine runs it: with the call's context as {@link RetryContext#current()} (see {@link HedgeEnding}). */
	private static <T> Function<@Nullable Throwable, CompletionStage<T>> recovering(RecoveryCallback<T> recovery) {
		return failure -> {
			try {
				return CompletableFuture.completedFuture(recovery.recover(Objects.requireNonNull(RetryContext.current())));
			}
			catch (Throwable ex) {
				return CompletableFuture.failedFuture(ex);
			}
		};
	}

	/** The caller was interrupted while it waited: the call is cancelled, unless it ended meanwhile. */
	private static <T> T interrupted(String name, CompletableFuture<T> call) throws Throwable {
		boolean cancelled = call.cancel(true);
		Thread.currentThread().interrupt();
		if (!cancelled && call.isDone() && !call.isCancelled()) {
			// The call ended as the interrupt came: its outcome stands (the flag is set again all the same).
			try {
				return call.getNow(null);
			}
			catch (CompletionException ended) {
				throw (ended.getCause() != null) ? ended.getCause() : ended;
			}
		}
		Throwable last = (call instanceof HedgedCall<T> hedged) ? hedged.context().getLastThrowable() : null;
		throw new RetryInterruptedException("Retry '" + name + "' was interrupted while it waited for its hedged"
				+ " copies; the call is cancelled and every copy in flight was interrupted"
				+ ((last != null) ? "; the cause is the last failure" : ""), last);
	}

}
