package dev.retrykit.benchmarks;

/**
 * Counts the attempts of a flaky operation: the first {@code failuresBeforeSuccess} attempts fail,
 * later ones succeed with the result; {@link #reset()} starts the pattern again. The subclasses turn
 * that into a synchronous call or an asynchronous one.
 *
 * <p>Not thread-safe: each benchmark thread owns its own instance (a {@code Scope.Thread} state).
 */
abstract class FlakyAttempts {

	private final int failuresBeforeSuccess;

	private final String result;

	private int attempts;

	/**
	 * @param failuresBeforeSuccess how many attempts fail before one succeeds, 0 or more
	 * @param result what the succeeding attempt yields
	 */
	FlakyAttempts(int failuresBeforeSuccess, String result) {
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

	/** Counts an attempt. @return whether it fails */
	final boolean nextAttemptFails() {
		return ++this.attempts <= this.failuresBeforeSuccess;
	}

}
