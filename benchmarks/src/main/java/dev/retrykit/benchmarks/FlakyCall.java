package dev.retrykit.benchmarks;

import java.util.concurrent.Callable;

/**
 * A call that throws {@link SimulatedFailure#INSTANCE} on its first {@code failuresBeforeSuccess}
 * attempts and then returns its result; {@link #reset()} starts the pattern again.
 *
 * <p>Not thread-safe: each benchmark thread owns its own instance (a {@code Scope.Thread} state).
 */
final class FlakyCall implements Callable<String> {

	private final int failuresBeforeSuccess;

	private final String result;

	private int attempts;

	/**
	 * @param failuresBeforeSuccess how many attempts fail before one succeeds, 0 or more
	 * @param result what the succeeding attempt returns
	 */
	FlakyCall(int failuresBeforeSuccess, String result) {
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
	public String call() {
		if (++this.attempts <= this.failuresBeforeSuccess) {
			throw SimulatedFailure.INSTANCE;
		}
		return this.result;
	}

}
