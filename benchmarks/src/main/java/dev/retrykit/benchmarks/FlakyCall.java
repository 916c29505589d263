package dev.retrykit.benchmarks;

import java.util.concurrent.Callable;

/**
 * A call that throws {@link SimulatedFailure#INSTANCE} on its first {@code failuresBeforeSuccess}
 * attempts and then returns its result; {@link #reset()} starts the pattern again.
 *
 * <p>Not thread-safe: each benchmark thread owns its own instance (a {@code Scope.Thread} state).
 */
final class FlakyCall extends FlakyAttempts implements Callable<String> {

	/**
	 * @param failuresBeforeSuccess how many attempts fail before one succeeds, 0 or more
	 * @param result what the succeeding attempt returns
	 */
	FlakyCall(int failuresBeforeSuccess, String result) {
		super(failuresBeforeSuccess, result);
	}

	@Override
	public String call() {
		if (nextAttemptFails()) {
			throw SimulatedFailure.INSTANCE;
		}
		return result();
	}

}
