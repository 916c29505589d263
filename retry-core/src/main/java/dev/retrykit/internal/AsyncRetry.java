package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.RetryEventType;
import dev.retrykit.RetryVetoedException;
import dev.retrykit.spi.ScheduledTask;
import org.jspecify.annotations.Nullable;

/**
 * One asynchronous call: the future returned to the caller, and the loop of attempts behind it.
 *
 * <p>No thread waits between attempts: a delay is a task on the {@link RetryScheduler}. Attempts of
 * one call run one at a time; a retry without delay after an attempt that completed synchronously
 * runs in a trampoline loop, so unlimited retries keep a constant stack depth, and each attempt only
 * attaches one completion to the caller's stage, so memory stays constant too. Cancelling this future
 * cancels the pending retry and, when it is a {@link Future}, the attempt in flight.
 *
 * @param <T> the result type
 */
public final class AsyncRetry<T> extends CompletableFuture<T> implements Runnable {

	private static final VarHandle WIP;

	private static final VarHandle SETTLED;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			WIP = lookup.findVarHandle(AsyncRetry.class, "wip", int.class);
			SETTLED = lookup.findVarHandle(AsyncRetry.class, "settled", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final RetryRuntime runtime;

	private final Supplier<? extends CompletionStage<T>> supplier;

	private final @Nullable Function<Throwable, ? extends CompletionStage<T>> recovery;

	private final MutableRetryContext context;

	/** Work in progress: attempts requested and not yet run, for the trampoline (via {@link #WIP}). */
	private volatile int wip;

	/** The number of the last attempt whose outcome was taken, by completion or timeout (via {@link #SETTLED}). */
	private volatile int settled;

	private int attempt;

	/**
	 * The task waiting on the scheduler: the attempt timeout while an attempt runs, the next attempt
	 * between attempts (never both at once).
	 */
	private volatile @Nullable ScheduledTask pending;

	private volatile @Nullable CompletionStage<?> inFlight;

	private AsyncRetry(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
		this.runtime = runtime;
		this.supplier = supplier;
		this.recovery = recovery;
		this.context = context;
	}

	/**
	 * Starts an asynchronous call. The first attempt runs on the calling thread; when it returns an
	 * already successful {@link CompletableFuture} whose result is accepted, that future itself is
	 * returned and nothing is allocated.
	 * @param runtime the instance
	 * @param supplier starts one attempt
	 * @param recovery the fallback, or {@code null}
	 * @param <T> the result type
	 * @return the future of the call
	 */
	public static <T> CompletableFuture<T> start(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			@Nullable Function<Throwable, ? extends CompletionStage<T>> recovery) {
		ContextStack stack = ContextStack.get();
		MutableRetryContext pooled = stack.pushPooled(runtime.name);
		AsyncRetry<T> call;
		CompletionStage<T> stage = null;
		Throwable thrown = null;
		try {
			ThreadCounters block = stack.counters(runtime.counters);
			if (!runtime.open(pooled)) {
				RetryVetoedException vetoed = new RetryVetoedException(
						"Retry '" + runtime.name + "' was vetoed by a listener before its first attempt");
				runtime.close(pooled, vetoed);
				return CompletableFuture.failedFuture(vetoed);
			}
			if (!runtime.acquireAttempt(pooled, block)) {
				call = new AsyncRetry<>(runtime, supplier, recovery, pooled.copy());
				call.rejected(block);
				return call;
			}
			try {
				stage = supplier.get();
			}
			catch (Throwable ex) {
				thrown = ex;
			}
			if (stage instanceof CompletableFuture<T> future && future.isDone() && !future.isCompletedExceptionally()) {
				T value = future.getNow(null);
				if (runtime.isAccepted(value)) {
					runtime.onSuccess(pooled, block, value);
					return future;
				}
			}
			call = new AsyncRetry<>(runtime, supplier, recovery, pooled.copy());
			call.attempt = 1;
		}
		finally {
			stack.pop();
		}
		if (thrown != null || stage == null) {
			call.settle(1, null, (thrown != null) ? thrown : nullStage(runtime));
		}
		else {
			call.await(stage, 1);
		}
		return call;
	}

	private void await(CompletionStage<T> stage, int id) {
		this.inFlight = stage;
		long timeoutNanos = this.runtime.attemptTimeoutNanos(this.context);
		if (timeoutNanos > 0) {
			this.pending = this.runtime.scheduler.schedule(() -> timedOut(id, timeoutNanos), timeoutNanos,
					TimeUnit.NANOSECONDS);
		}
		// handle, not whenComplete: on a failed stage whenComplete completes its (unused) dependent with a
		// new CompletionException, whose stack trace costs about a microsecond and a kilobyte per attempt.
		stage.handle((value, failure) -> {
			settle(id, value, failure);
			return null;
		});
	}

	private void timedOut(int id, long timeoutNanos) {
		CompletionStage<?> stage = this.inFlight;
		TimeoutException timeout = new TimeoutException("Attempt " + id + " of retry '" + this.runtime.name
				+ "' timed out after " + Durations.formatNanos(timeoutNanos));
		if (this.settled == id - 1) {
			this.runtime.counters.event(RetryEventType.ATTEMPT_TIMEOUT, id, timeout, 0);
		}
		settle(id, null, timeout);
		if (this.settled == id && stage instanceof Future<?> future) {
			future.cancel(true);
		}
	}

	private void settle(int id, @Nullable T value, @Nullable Throwable failure) {
		if (!SETTLED.compareAndSet(this, id - 1, id)) {
			return;
		}
		this.inFlight = null;
		ScheduledTask timeout = this.pending;
		if (timeout != null) {
			timeout.cancel();
		}
		if (isDone()) {
			this.runtime.releaseAttempt(this.context);
			return;
		}
		ThreadCounters block = this.runtime.counters.forCurrentThread();
		long decision;
		if (failure == null) {
			if (this.runtime.isAccepted(value)) {
				this.runtime.onSuccess(this.context, block, value);
				complete(value);
				return;
			}
			decision = this.runtime.onFailure(this.context, null, value);
		}
		else {
			decision = this.runtime.onFailure(this.context, FailureClassifier.unwrap(failure), null);
		}
		if (decision < 0) {
			stop(block, decision);
		}
		else if (decision == 0) {
			trampoline();
		}
		else {
			this.pending = this.runtime.scheduler.schedule(this, decision, TimeUnit.NANOSECONDS);
			if (isDone()) {
				cancelPending();
			}
		}
	}

	/** Runs the next attempt: the scheduler calls this when a retry's delay has passed. */
	@Override
	public void run() {
		trampoline();
	}

	private void trampoline() {
		if ((int) WIP.getAndAdd(this, 1) != 0) {
			return;
		}
		do {
			runAttempt();
		}
		while ((int) WIP.getAndAdd(this, -1) != 1);
	}

	private void runAttempt() {
		if (isDone()) {
			return;
		}
		ContextStack stack = ContextStack.get();
		ThreadCounters block = stack.counters(this.runtime.counters);
		if (!this.runtime.acquireAttempt(this.context, block)) {
			rejected(block);
			return;
		}
		int id = ++this.attempt;
		CompletionStage<T> stage;
		this.context.setParent(stack.top());
		stack.push(this.context);
		try {
			stage = this.supplier.get();
		}
		catch (Throwable ex) {
			stage = null;
			settle(id, null, ex);
			return;
		}
		finally {
			stack.pop();
		}
		if (stage == null) {
			settle(id, null, nullStage(this.runtime));
		}
		else {
			await(stage, id);
		}
	}

	private void rejected(ThreadCounters block) {
		Throwable rejection = this.runtime.onCircuitRejection(this.context, block);
		if (this.recovery != null) {
			recover(rejection);
		}
		else {
			this.runtime.close(this.context, rejection);
			completeExceptionally(rejection);
		}
	}

	@SuppressWarnings("unchecked")
	private void stop(ThreadCounters block, long reason) {
		if (reason == RetryRuntime.STOP_CIRCUIT_OPEN) {
			rejected(block);
			return;
		}
		this.runtime.onStop(this.context, block, reason);
		Throwable last = this.context.getLastThrowable();
		if (this.recovery != null) {
			recover(last);
		}
		else if (last == null) {
			this.runtime.close(this.context, null);
			complete((T) this.context.getLastResult());
		}
		else {
			this.runtime.close(this.context, last);
			completeExceptionally(last);
		}
	}

	private void recover(@Nullable Throwable failure) {
		CompletionStage<T> stage;
		try {
			stage = this.recovery.apply(failure);
			if (stage == null) {
				throw new NullPointerException("The recovery of retry '" + this.runtime.name + "' returned null");
			}
		}
		catch (Throwable ex) {
			this.runtime.close(this.context, ex);
			completeExceptionally(ex);
			return;
		}
		stage.handle((value, ex) -> {
			if (ex == null) {
				this.runtime.onRecovered(this.context, this.runtime.counters.forCurrentThread());
				this.runtime.close(this.context, null);
				complete(value);
			}
			else {
				Throwable cause = FailureClassifier.unwrap(ex);
				this.runtime.close(this.context, cause);
				completeExceptionally(cause);
			}
			return null;
		});
	}

	/**
	 * Cancels the call: the pending retry never runs and the attempt in flight is cancelled when it is a
	 * {@link Future}.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		// Completing with our own CancellationException, which skips its stack trace, both keeps
		// cancelling cheap (the JDK's fills one in) and tells whether this call did it: the clean-up
		// below runs once however often cancel is called.
		CallCancelledException cancellation = new CallCancelledException(this.runtime.name);
		if (!completeExceptionally(cancellation)) {
			return isCancelled();
		}
		cancelPending();
		if (this.inFlight instanceof Future<?> future) {
			future.cancel(mayInterruptIfRunning);
		}
		this.runtime.close(this.context, cancellation);
		return true;
	}

	private void cancelPending() {
		ScheduledTask task = this.pending;
		if (task != null) {
			task.cancel();
		}
	}

	/** The cancellation of an async call: a {@link java.util.concurrent.CancellationException} without a stack trace. */
	static final class CallCancelledException extends java.util.concurrent.CancellationException {

		private static final long serialVersionUID = 1L;

		CallCancelledException(String name) {
			super("Retry '" + name + "' was cancelled");
		}

		@Override
		public synchronized Throwable fillInStackTrace() {
			return this;
		}

	}

	private static NullPointerException nullStage(RetryRuntime runtime) {
		return new NullPointerException("The supplier of retry '" + runtime.name + "' returned null instead of a stage");
	}

	@Override
	public String toString() {
		return "AsyncRetry[name=" + this.runtime.name + ", attempt=" + this.attempt + ", " + super.toString() + "]";
	}

}
