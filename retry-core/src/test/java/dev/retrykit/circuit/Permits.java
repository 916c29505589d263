package dev.retrykit.circuit;

/**
 * The breaker's permit protocol, which is not public API, for tests outside this package that must
 * hold a trial slot across virtual time.
 */
public final class Permits {

	/** The answer of {@link #acquire} when the call is rejected. */
	public static final long NONE = CircuitBreaker.NO_PERMISSION;

	private Permits() {
	}

	public static long acquire(CircuitBreaker breaker) {
		return breaker.acquirePermission();
	}

	public static void onSuccess(CircuitBreaker breaker, long permit) {
		breaker.onSuccess(permit);
	}

	public static void onFailure(CircuitBreaker breaker, long permit) {
		breaker.onFailure(permit);
	}

}
