package dev.retrykit.internal;

import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * An async call with a fallback: only calls that have one pay for its field.
 *
 * @param <T> the result type
 */
final class AsyncRetryWithRecovery<T> extends AsyncRetry<T> {

	private final Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery;

	AsyncRetryWithRecovery(RetryRuntime runtime, Supplier<? extends CompletionStage<T>> supplier,
			Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery, MutableRetryContext context) {
		super(runtime, supplier, context);
		this.recovery = recovery;
	}

	@Override
	Function<@Nullable Throwable, ? extends CompletionStage<T>> recovery() {
		return this.recovery;
	}

}
