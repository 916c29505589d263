package dev.retrykit.circuit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Permits tie an outcome to the generation that admitted the call. */
class CircuitBreakerPermitTests {

	private final FakeTimeSource clock = new FakeTimeSource();

	private final CircuitBreaker breaker = CircuitBreaker.create("inventory",
			CircuitBreakerConfig.builder().trip("consecutiveFailures > 0").timeout(Duration.ofSeconds(10)).build(), this.clock);

	private void openThenWaitForHalfOpen() {
		this.breaker.onFailure(this.breaker.acquirePermission());
		this.clock.advance(Duration.ofSeconds(10));
	}

	@Test
	void closedPermitsAreNeverNegativeAndAnOpenCircuitGrantsNone() {
		long closed = this.breaker.acquirePermission();
		assertThat(closed).isNotNegative();
		this.breaker.onFailure(closed);
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(this.breaker.acquirePermission()).isEqualTo(CircuitBreaker.NO_PERMISSION);
	}

	@Test
	void halfOpenGrantsTrialPermitsOfItsOwnGenerationOnly() {
		long closed = this.breaker.acquirePermission();
		openThenWaitForHalfOpen();
		long trial = this.breaker.acquirePermission();
		assertThat(trial).isNotNegative().isNotEqualTo(closed);
		assertThat(this.breaker.getMetrics().trialCallsInFlight()).isEqualTo(1);
		assertThat(this.breaker.acquirePermission()).isEqualTo(CircuitBreaker.NO_PERMISSION);
	}

	@Test
	void aSlowCallAdmittedBeforeOpeningCannotCloseTheCircuitLater() {
		long slow = this.breaker.acquirePermission();
		openThenWaitForHalfOpen();
		long trial = this.breaker.acquirePermission();
		this.breaker.onSuccess(slow);
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		assertThat(this.breaker.getMetrics().trialCallsInFlight()).isEqualTo(1);
		this.breaker.onSuccess(trial);
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void aSlowCallAdmittedBeforeOpeningCannotReopenTheCircuit() {
		long slow = this.breaker.acquirePermission();
		openThenWaitForHalfOpen();
		this.breaker.acquirePermission();
		this.breaker.onFailure(slow);
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
	}

	@Test
	void aStalePermitCannotFreeATrialSlot() {
		long slow = this.breaker.acquirePermission();
		openThenWaitForHalfOpen();
		this.breaker.acquirePermission();
		this.breaker.releasePermission(slow);
		assertThat(this.breaker.getMetrics().trialCallsInFlight()).isEqualTo(1);
		assertThat(this.breaker.acquirePermission()).isEqualTo(CircuitBreaker.NO_PERMISSION);
	}

	@Test
	void aTrialPermitFromAnEarlierHalfOpenPeriodIsIgnored() {
		CircuitBreaker breaker = CircuitBreaker.create("inventory", CircuitBreakerConfig.builder()
				.trip("consecutiveFailures > 0").timeout(Duration.ofSeconds(10)).maxRequests(2).build(), this.clock);
		breaker.onFailure(breaker.acquirePermission());
		this.clock.advance(Duration.ofSeconds(10));
		long first = breaker.acquirePermission();
		long second = breaker.acquirePermission();
		breaker.onFailure(first);
		this.clock.advance(Duration.ofSeconds(10));
		long next = breaker.acquirePermission();
		assertThat(next).isNotEqualTo(second);
		breaker.onSuccess(second);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.HALF_OPEN, 0, 0, 0, 1));
	}

	@Test
	void outcomesFromBeforeAnIntervalClearingStillCount() {
		CircuitBreaker breaker = CircuitBreaker.create("inventory", CircuitBreakerConfig.builder()
				.trip("totalFailures >= 2").interval(Duration.ofSeconds(5)).build(), this.clock);
		long early = breaker.acquirePermission();
		this.clock.advance(Duration.ofSeconds(6));
		breaker.onFailure(breaker.acquirePermission());
		breaker.onFailure(early);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void noPermissionIsIgnoredByTheOutcomeMethods() {
		openThenWaitForHalfOpen();
		long trial = this.breaker.acquirePermission();
		this.breaker.onSuccess(CircuitBreaker.NO_PERMISSION);
		this.breaker.onFailure(CircuitBreaker.NO_PERMISSION);
		this.breaker.releasePermission(CircuitBreaker.NO_PERMISSION);
		assertThat(this.breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.HALF_OPEN, 0, 0, 0, 1));
		this.breaker.releasePermission(trial);
		assertThat(this.breaker.getMetrics().trialCallsInFlight()).isZero();
	}

}
