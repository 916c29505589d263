package dev.retrykit.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * How an async call ends when it did not succeed ({@link CallEnding.Ending}): the recovery's stage
 * completes the caller's future, or the failure (or the last rejected result) does. Throws nothing.
 */
final class AsyncRetryEnding implements CallEnding.Ending<@Nullable Void, AsyncRetry<?>> {

	static final AsyncRetryEnding INSTANCE = new AsyncRetryEnding();

	private AsyncRetryEnding() {
	}

	@Override
	public boolean hasRecovery(AsyncRetry<?> call) {
		return call.recovery() != null;
	}

	@Override
	public @Nullable Void recover(AsyncRetry<?> call, RetryRuntime runtime, MutableRetryContext context,
			ThreadCounters block, @Nullable Throwable failure) {
		recover(call, failure);
		return null;
	}

	/** Runs the fallback, whose stage completes the call; only when the call has one. */
	private static <T> void recover(AsyncRetry<T> call, @Nullable Throwable failure) {
		recoverInto(call.runtime, call.context, Objects.requireNonNull(call.recovery()), failure, call);
	}

	/**
	 * Runs an async call's fallback and completes the caller's future with its outcome, reporting it
	 * ({@link CallEnding#recovered}, {@link CallEnding#recoveryFailed}); for every async engine (this
	 * one and {@link HedgeEnding}).
	 */
	static <T> void recoverInto(RetryRuntime runtime, MutableRetryContext context,
			Function<@Nullable Throwable, ? extends CompletionStage<T>> fallback, @Nullable Throwable failure,
			CompletableFuture<T> caller) {
		CompletionStage<T> stage;
		try {
			stage = fallback.apply(failure);
			if (stage == null) {
				throw new NullPointerException("The recovery of retry '" + runtime.name + "' returned null");
			}
		}
		catch (Throwable ex) {
			CallEnding.recoveryFailed(runtime, context, ex);
			caller.completeExceptionally(ex);
			return;
		}
		stage.handle((value, ex) -> {
			if (ex == null) {
				CallEnding.recovered(runtime, context, runtime.counters.forCurrentThread());
				caller.complete(value);
			}
			else {
				Throwable cause = FailureClassifier.unwrap(ex);
				CallEnding.recoveryFailed(runtime, context, cause);
				caller.completeExceptionally(cause);
			}
			return null;
		});
	}

	@Override
	public @Nullable Void fail(AsyncRetry<?> call, MutableRetryContext context, @Nullable Throwable failure) {
		failInto(call, context, failure);
		return null;
	}

	/**
	 * Completes an async call's future with its failure, or with its last rejected result when it ends
	 * with one; for every async engine (this one and {@link HedgeEnding}).
	 */
	@SuppressWarnings("unchecked")
	static <T> void failInto(CompletableFuture<T> caller, MutableRetryContext context, @Nullable Throwable failure) {
		if (failure == null) {
			caller.complete((T) context.getLastResult());
		}
		else {
			caller.completeExceptionally(failure);
		}
	}

}
