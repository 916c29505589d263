package dev.retrykit.circuit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls through a breaker on its permit protocol, for the breaker's tests: each call acquires a permit
 * (asserting that it was granted) and reports its outcome with it.
 */
final class PermittedCalls {

	private PermittedCalls() {
	}

	/**
	 * Asks for a permit that must be granted.
	 * @return the permit, for the test to report later
	 */
	static long admit(CircuitBreaker breaker) {
		long permit = breaker.acquirePermission();
		assertThat(permit).as("permit of a call the breaker should admit").isNotNegative();
		return permit;
	}

	/** Asks for a permit that must be refused. */
	static void assertRejected(CircuitBreaker breaker) {
		assertThat(breaker.acquirePermission()).as("permit of a call the breaker should reject")
			.isEqualTo(CircuitBreaker.NO_PERMISSION);
	}

	/** Runs {@code times} admitted calls that fail, one after the other. */
	static void fail(CircuitBreaker breaker, int times) {
		for (int i = 0; i < times; i++) {
			breaker.onFailure(admit(breaker));
		}
	}

	/** Runs {@code times} admitted calls that succeed, one after the other. */
	static void succeed(CircuitBreaker breaker, int times) {
		for (int i = 0; i < times; i++) {
			breaker.onSuccess(admit(breaker));
		}
	}

}
