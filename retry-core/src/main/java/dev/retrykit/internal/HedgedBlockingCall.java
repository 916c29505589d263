package dev.retrykit.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.retrykit.RecoveryCallback;
import dev.retrykit.context.RetryContext;
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
 * when another copy wins. Copy k sees a context of its own as {@link dev.retrykit.RetryTemplate#currentContext()} (and as
 * the attempt's argument): retry count k − 1, attribute {@value HedgeCopy#HEDGED} {@code true} for
 * k &gt; 1.
 * <li>A copy that lost, or that was in flight when the call ended otherwise, is cancelled, its thread
 * interrupted only with {@code interruptLosers}; its outcome is ignored.
 * <li>An executor that refuses a copy fails that copy with its
 * {@link java.util.concurrent.RejectedExecutionException}, classified as any failure: the call goes on
 * with its other copies, or ends with it; it never waits for a copy that was not sent. Nor for one that
 * was sent and dropped: the caller waits in slices (1 ms doubling up to 1 s), and after each one fails,
 * likewise, every copy no thread began while its executor is terminated, or is a
 * {@link ThreadPoolExecutor} shut down with the copy no longer in its queue ({@code shutdownNow()}) for
 * 50 ms ({@link #UNSEEN_NANOS}) while every live worker of the pool was running a task. A worker that took a
 * copy off the queue is alive and runs no task until it begins the copy, so such a copy is never taken
 * for dropped; one that the pool's own {@code beforeExecute} holds for that long is.
 * The call's deadline ({@code max-duration}) and each copy's {@code attempt-timeout} bound the wait
 * too, through the engine's timer.
 * <li>The call ends as a synchronous one does: with the winner's result, the recovery's result, the last
 * failure unchanged (an {@link Error} of a copy included), or the last rejected result.
 * <li>The caller interrupted while it waits cancels the call (every copy in flight is cancelled, no
 * further copy starts) and gets a {@link RetryInterruptedException}, the thread's interrupt flag set
 * again; unless the call had already ended, whose outcome it then gets, the flag set.
 * </ul>
 * The recovery runs on the thread that ends the call: a copy's thread, or the caller's when no copy
 * could start. Stateless.
 */
final class HedgedBlockingCall {

	/** The caller's first wait before it looks for dropped copies, doubled up to {@link #MAX_SLICE_NANOS}. */
	private static final long MIN_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long MAX_SLICE_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * How long a copy of an executor shut down, but not terminated, must be found neither queued nor
	 * begun, while no worker of its pool is between tasks, before it counts as dropped.
	 */
	static final long UNSEEN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private HedgedBlockingCall() {
	}

	/**
	 * Runs a hedged blocking call and waits for its outcome.
	 * @param executor the executor of the instance's hedging policy
	 * @return the winner's or the recovery's result, or the last rejected result
	 * @throws Throwable the call's failure, unchanged
	 */
	static <A, T> T execute(RetryRuntime runtime, Executor executor,
			RetryFunction<? super A, T, ?> attempt, A argument, @Nullable RecoveryCallback<T> recovery,
			@Nullable Object operation) throws Throwable {
		Copies<A, T> copies = new Copies<>(runtime, executor, attempt, argument);
		MutableRetryContext context = new MutableRetryContext(runtime.name, ContextStack.current());
		if (!CallOpening.open(runtime, context, operation)) {
			throw CallOpening.vetoed(runtime, context, "Retry");
		}
		if (CallDeadlines.passedAtOpen(runtime, context)) {
			return SyncRetry.finish(runtime, context, runtime.counters.forCurrentThread(), Decision.STOP_DEADLINE,
					recovery);
		}
		HedgedCall<T> call = new HedgedCall<>(runtime, null, copies,
				(recovery != null) ? recovering(recovery, context) : null, context);
		HedgeStarts.startFirst(call.race());
		try {
			return await(call, copies);
		}
		catch (ExecutionException ex) {
			throw ex.getCause();
		}
		catch (InterruptedException ex) {
			return interrupted(runtime.name, call);
		}
	}

	/** Waits for the call in slices, failing the copies its executor dropped after each. */
	private static <T> T await(CompletableFuture<T> call, Copies<?, T> copies)
			throws InterruptedException, ExecutionException {
		long slice = MIN_SLICE_NANOS;
		for (;;) {
			try {
				return call.get(slice, TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				copies.failDropped();
				slice = Math.min(MAX_SLICE_NANOS, slice * 2);
			}
		}
	}

	/**
	 * The copies of one blocking call, each a {@link BlockingCopyTask} on the executor with its context
	 * handed over by the engine; each tells the listeners about itself on the thread that runs it.
	 */
	private static final class Copies<A, T> implements HedgedFirstCopy.CopySource<T> {

		private final RetryRuntime runtime;

		private final Executor executor;

		private final RetryFunction<? super A, T, ?> attempt;

		private final A argument;

		private final Thread caller = Thread.currentThread();

		/** The copies sent; guarded by this. */
		private final List<BlockingCopyTask<A, T>> sent = new ArrayList<>(2);

		/**
		 * When the checks began to find each copy neither queued nor begun ({@link System#nanoTime()}), while
		 * every live worker of its pool was running a task. Only the caller's thread reads and writes it. A
		 * worker that has just taken a copy off the queue has not begun it yet: only a copy found so for
		 * {@link #UNSEEN_NANOS} was dropped.
		 */
		private final Map<BlockingCopyTask<A, T>, Long> unseen = new HashMap<>(2);

		Copies(RetryRuntime runtime, Executor executor, RetryFunction<? super A, T, ?> attempt, A argument) {
			this.runtime = runtime;
			this.executor = executor;
			this.attempt = attempt;
			this.argument = argument;
		}

		@Override
		public CompletionStage<T> copy(MutableRetryContext context, RetryContext told,
				@Nullable HedgeNotices notices) {
			BlockingCopyTask<A, T> copy = new BlockingCopyTask<>(this.attempt, this.argument, context, this.caller,
					this.runtime.listeners, told, notices);
			synchronized (this) {
				this.sent.add(copy);
			}
			this.executor.execute(copy);
			return copy;
		}

		/** Fails each copy that no thread took and that the executor will never run. */
		void failDropped() {
			if (!(this.executor instanceof ExecutorService service) || !service.isShutdown()) {
				return;
			}
			boolean terminated = service.isTerminated();
			if (!terminated && service instanceof ThreadPoolExecutor pool && pool.getPoolSize() > pool.getActiveCount()) {
				// A live worker runs no task: it may hold a copy it took off the queue and not begun yet (or be
				// on its way out). Nothing counts as unseen while it does.
				this.unseen.clear();
				return;
			}
			List<BlockingCopyTask<A, T>> sent;
			synchronized (this) {
				sent = List.copyOf(this.sent);
			}
			long now = System.nanoTime();
			for (BlockingCopyTask<A, T> copy : sent) {
				if (copy.isDone() || copy.isTaken() || !dropped(service, copy)) {
					this.unseen.remove(copy);
					continue;
				}
				Long since = this.unseen.putIfAbsent(copy, now);
				if (!terminated && (since == null || now - since < UNSEEN_NANOS)) {
					// A worker may have taken it off the queue and be about to begin it (its pool's beforeExecute).
					continue;
				}
				this.unseen.remove(copy);
				copy.dropIfNeverRun(new RejectedExecutionException("Copy " + (sent.indexOf(copy) + 1)
						+ " of retry '" + this.runtime.name + "' was dropped by its executor ("
						+ service.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(service))
						+ "), shut down before it ran the copy"));
			}
		}

		private static boolean dropped(ExecutorService service, Runnable copy) {
			return service.isTerminated()
					|| (service instanceof ThreadPoolExecutor pool && !pool.getQueue().contains(copy));
		}

	}

	/**
	 * The recovery as the engine runs it, on whichever thread ends the call: handed the call's context, which is
	 * also {@link dev.retrykit.RetryTemplate#currentContext()} while it runs, as in a call that does not hedge.
	 */
	private static <T> Function<@Nullable Throwable, CompletionStage<T>> recovering(RecoveryCallback<T> recovery,
			MutableRetryContext context) {
		return failure -> {
			ContextStack stack = ContextStack.get();
			stack.push(context);
			try {
				return CompletableFuture.completedFuture(recovery.recover(context));
			}
			catch (Throwable ex) {
				return CompletableFuture.failedFuture(ex);
			}
			finally {
				stack.pop();
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
				+ " copies; the call is cancelled and every copy in flight was cancelled"
				+ ((last != null) ? "; the cause is the last failure" : ""), last);
	}

}
