package dev.retrykit.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The asynchronous twin of {@link FlakyCall}: its first {@code failuresBeforeSuccess} attempts return
 * {@code CompletableFuture.failedFuture(SimulatedFailure.INSTANCE)}, later ones
 * {@code CompletableFuture.completedFuture(result)}. Nothing is thrown, and each attempt allocates
 * only the future it returns: the user's own object, the same for every library.
 *
 * <p>Not thread-safe: each benchmark thread owns its own instance (a {@code Scope.Thread} state).
 */
final class FlakyAsyncCall extends FlakyAttempts implements Supplier<CompletionStage<String>> {

	/**
	 * @param failuresBeforeSuccess how many attempts fail before one succeeds, 0 or more
	 * @param result what the succeeding attempt's future holds
	 */
	FlakyAsyncCall(int failuresBeforeSuccess, String result) {
		super(failuresBeforeSuccess, result);
	}

	@Override
	public CompletionStage<String> get() {
		if (nextAttemptFails()) {
			return CompletableFuture.failedFuture(SimulatedFailure.INSTANCE);
		}
		return CompletableFuture.completedFuture(result());
	}

}
