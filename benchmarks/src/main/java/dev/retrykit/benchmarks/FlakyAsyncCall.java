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
final class FlakyAsyncCall implements Supplier<CompletionStage<String>> {

	private final int failuresBeforeSuccess;

	private final String result;

	private int attempts;

	/**
	 * @param failuresBeforeSuccess how many attempts fail before one succeeds, 0 or more
	 * @param result what the succeeding attempt's future holds
	 */
	FlakyAsyncCall(int failuresBeforeSuccess, String result) {
		if (failuresBeforeSuccess < 0) {
			throw new IllegalArgumentException(
					"Invalid failuresBeforeSuccess (" + failuresBeforeSuccess + "): must be 0 or greater");
		}
		this.failuresBeforeSuccess = failuresBeforeSuccess;
		this.result = result;
	}

	/** Forgets the attempts made so far: the next attempt is a first attempt again. */
	void reset() {
		this.attempts = 0;
	}

	/** @return the attempts made since construction or the last {@link #reset()} */
	int attempts() {
		return this.attempts;
	}

	/** @return the result given at construction */
	String result() {
		return this.result;
	}

	@Override
	public CompletionStage<String> get() {
		if (++this.attempts <= this.failuresBeforeSuccess) {
			return CompletableFuture.failedFuture(SimulatedFailure.INSTANCE);
		}
		return CompletableFuture.completedFuture(this.result);
	}

}
