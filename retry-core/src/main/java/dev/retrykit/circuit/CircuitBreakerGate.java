package dev.retrykit.circuit;

import dev.retrykit.internal.CircuitGate;
import org.jspecify.annotations.Nullable;

/**
 * The retry engine's view of a {@link CircuitBreaker}: permits tied to the breaker's generation, the
 * time left open, rejections with a cause. Package-private, so that the permit protocol is not public
 * API; thread-safe as the breaker is.
 */
final class CircuitBreakerGate implements CircuitGate {

	private final CircuitBreaker breaker;

	CircuitBreakerGate(CircuitBreaker breaker) {
		this.breaker = breaker;
	}

	@Override
	public long acquire() {
		return this.breaker.acquirePermission();
	}

	@Override
	public void onSuccess(long permit) {
		this.breaker.onSuccess(permit);
	}

	@Override
	public void onFailure(long permit) {
		this.breaker.onFailure(permit);
	}

	@Override
	public void release(long permit) {
		this.breaker.releasePermission(permit);
	}

	@Override
	public long remainingOpenNanos() {
		return this.breaker.getRemainingOpenNanos();
	}

	@Override
	public boolean isForcedOpen() {
		return this.breaker.isForcedOpen();
	}

	@Override
	public RuntimeException rejection(@Nullable Throwable cause) {
		return this.breaker.newCircuitOpenException(cause);
	}

	@Override
	public boolean isRejection(Throwable failure) {
		return failure instanceof CircuitOpenException;
	}

}
