package dev.retrykit.circuit;

import java.time.Duration;

import dev.retrykit.testing.Allocations;
import org.junit.jupiter.api.Test;

import static dev.retrykit.circuit.PermittedCalls.admit;
import static dev.retrykit.circuit.PermittedCalls.assertRejected;
import static dev.retrykit.circuit.PermittedCalls.fail;
import static dev.retrykit.circuit.PermittedCalls.succeed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The state machine: closed, open, half-open, and the counts behind the trip expression. */
class CircuitBreakerTests {

	private final FakeTimeSource clock = new FakeTimeSource();

	private CircuitBreaker breaker(CircuitBreakerConfigBuilder config) {
		return CircuitBreaker.create("inventory", config.build(), this.clock);
	}

	@Test
	void startsClosedAndPermitsEveryCall() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder());
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		for (int i = 0; i < 100; i++) {
			admit(breaker);
		}
		assertThat(breaker.getRemainingOpenNanos()).isZero();
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.CLOSED, 0, 0, 0, 0));
	}

	@Test
	void whenTripExpressionBecomesTrueShouldOpen() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder());
		fail(breaker, 5);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		assertThat(breaker.getMetrics().consecutiveFailures()).isEqualTo(5);
		fail(breaker, 1);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertRejected(breaker);
	}

	@Test
	void successResetsConsecutiveFailuresButNotTotals() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder());
		fail(breaker, 5);
		succeed(breaker, 1);
		fail(breaker, 5);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		CircuitBreakerMetrics metrics = breaker.getMetrics();
		assertThat(metrics.consecutiveFailures()).isEqualTo(5);
		assertThat(metrics.totalFailures()).isEqualTo(10);
		assertThat(metrics.totalSuccesses()).isEqualTo(1);
		assertThat(metrics.requests()).isEqualTo(11);
		assertThat(metrics.failureRate()).isCloseTo(90.909, org.assertj.core.data.Offset.offset(0.001));
	}

	@Test
	void failureRateTripWaitsForEnoughRequests() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("requests >= 10 && failureRate >= 50.5"));
		fail(breaker, 5);
		succeed(breaker, 4);
		fail(breaker, 1);
		// 6 of 10 failed: 60%
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
		CircuitBreaker balanced = breaker(CircuitBreakerConfig.builder().trip("requests >= 10 && failureRate >= 50.5"));
		succeed(balanced, 5);
		fail(balanced, 5);
		// 5 of 10 failed: 50%
		assertThat(balanced.getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void whenOpenShouldRejectUntilTheTimeoutHasPassed() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0").timeout(Duration.ofSeconds(30)));
		fail(breaker, 1);
		assertThat(breaker.getRemainingOpenNanos()).isEqualTo(Duration.ofSeconds(30).toNanos());
		this.clock.advance(Duration.ofSeconds(10));
		assertRejected(breaker);
		assertThat(breaker.getRemainingOpenNanos()).isEqualTo(Duration.ofSeconds(20).toNanos());
		this.clock.advanceNanos(Duration.ofSeconds(20).toNanos() - 1);
		assertRejected(breaker);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(breaker.getRemainingOpenNanos()).isEqualTo(1);
		this.clock.advanceNanos(1);
		assertThat(breaker.getRemainingOpenNanos()).isZero();
		admit(breaker);
		assertThat(breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		assertThat(breaker.getRemainingOpenNanos()).isZero();
	}

	@Test
	void getStateTurnsHalfOpenOnceTheTimeoutHasPassed() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0"));
		fail(breaker, 1);
		this.clock.advance(Duration.ofSeconds(60));
		assertThat(breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.HALF_OPEN, 0, 0, 0, 0));
	}

	@Test
	void whenOpenShouldIgnoreOutcomes() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0"));
		long slowSuccess = admit(breaker);
		long slowFailure = admit(breaker);
		long slowCancelled = admit(breaker);
		fail(breaker, 1);
		this.clock.advance(Duration.ofSeconds(10));
		long rejected = breaker.acquirePermission();
		assertThat(rejected).isEqualTo(CircuitBreaker.NO_PERMISSION);
		breaker.onSuccess(slowSuccess);
		breaker.onFailure(slowFailure);
		breaker.releasePermission(slowCancelled);
		breaker.onSuccess(rejected);
		breaker.onFailure(rejected);
		breaker.releasePermission(rejected);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.OPEN, 0, 0, 0, 0));
		assertThat(breaker.getRemainingOpenNanos()).as("the open period goes on").isEqualTo(Duration.ofSeconds(50).toNanos());
	}

	@Test
	void halfOpenClosesOnTheFirstSuccessByDefault() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0"));
		fail(breaker, 1);
		this.clock.advance(Duration.ofSeconds(60));
		long trial = admit(breaker);
		assertRejected(breaker);
		breaker.onSuccess(trial);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.CLOSED, 0, 0, 0, 0));
		admit(breaker);
	}

	@Test
	void halfOpenClosesAfterMaxRequestsTrialSuccesses() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0").maxRequests(3));
		fail(breaker, 1);
		this.clock.advance(Duration.ofSeconds(60));
		long first = admit(breaker);
		long second = admit(breaker);
		long third = admit(breaker);
		assertRejected(breaker);
		breaker.onSuccess(first);
		breaker.onSuccess(second);
		assertThat(breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.HALF_OPEN, 0, 0, 2, 1));
		breaker.onSuccess(third);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void halfOpenAdmitsAgainWhenATrialCallFinishesOrIsReleased() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0").maxRequests(2));
		fail(breaker, 1);
		this.clock.advance(Duration.ofSeconds(60));
		long cancelled = admit(breaker);
		long first = admit(breaker);
		assertRejected(breaker);
		breaker.releasePermission(cancelled);
		assertThat(breaker.getMetrics().trialCallsInFlight()).isEqualTo(1);
		long second = admit(breaker);
		assertRejected(breaker);
		breaker.onSuccess(first);
		assertThat(breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		admit(breaker);
		breaker.onSuccess(second);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void halfOpenReopensOnATrialFailureWithAFreshTimeout() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0").maxRequests(2)
				.timeout(Duration.ofSeconds(10)));
		fail(breaker, 1);
		this.clock.advance(Duration.ofSeconds(15));
		long succeeding = admit(breaker);
		long failing = admit(breaker);
		breaker.onSuccess(succeeding);
		breaker.onFailure(failing);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(breaker.getRemainingOpenNanos()).isEqualTo(Duration.ofSeconds(10).toNanos());
		this.clock.advance(Duration.ofSeconds(10));
		admit(breaker);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.HALF_OPEN, 0, 0, 0, 1));
	}

	@Test
	void halfOpenIgnoresPermitsOfAnEarlierGeneration() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 0"));
		long slowFailure = admit(breaker);
		long slowSuccess = admit(breaker);
		long slowCancelled = admit(breaker);
		fail(breaker, 1);
		this.clock.advance(Duration.ofSeconds(60));
		assertThat(breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		breaker.onFailure(slowFailure);
		breaker.onSuccess(slowSuccess);
		breaker.releasePermission(slowCancelled);
		assertThat(breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.HALF_OPEN, 0, 0, 0, 0));
		long trial = admit(breaker);
		assertRejected(breaker);
		breaker.releasePermission(slowCancelled);
		assertThat(breaker.getMetrics().trialCallsInFlight()).isEqualTo(1);
		breaker.onSuccess(trial);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
	}

	@Test
	void intervalClearsTheCountsWhileClosed() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("totalFailures >= 3").interval(Duration.ofSeconds(10)));
		fail(breaker, 2);
		succeed(breaker, 1);
		this.clock.advance(Duration.ofSeconds(9));
		assertThat(breaker.getMetrics().totalFailures()).isEqualTo(2);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.CLOSED, 0, 0, 0, 0));
		fail(breaker, 2);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		this.clock.advance(Duration.ofSeconds(10));
		fail(breaker, 2);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		fail(breaker, 1);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void countsStartFreshWhenTheCircuitCloses() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("totalFailures >= 2")
				.interval(Duration.ofSeconds(10)).timeout(Duration.ofSeconds(30)));
		fail(breaker, 2);
		this.clock.advance(Duration.ofSeconds(30));
		succeed(breaker, 1);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		this.clock.advance(Duration.ofSeconds(9));
		fail(breaker, 2);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void zeroIntervalNeverClearsTheCounts() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder().trip("totalFailures >= 3"));
		fail(breaker, 2);
		this.clock.advance(Duration.ofDays(365));
		fail(breaker, 1);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void closedHotPathAllocatesNothing() {
		CircuitBreaker breaker = breaker(CircuitBreakerConfig.builder());
		for (int i = 0; i < 20_000; i++) {
			breaker.onSuccess(breaker.acquirePermission());
		}
		long allocated = Allocations.measure(() -> {
			boolean all = true;
			for (int i = 0; i < 200_000; i++) {
				long permit = breaker.acquirePermission();
				all &= permit != CircuitBreaker.NO_PERMISSION;
				breaker.onSuccess(permit);
			}
			return all;
		});
		assertThat(allocated).isLessThan(1024);
		assertThat(Allocations.sink).as("every call admitted").isTrue();
	}

	@Test
	void rejectsBlankNames() {
		assertThatIllegalArgumentException()
				.isThrownBy(() -> CircuitBreaker.create(" ", CircuitBreakerConfig.ofDefaults(), this.clock))
				.withMessage("Invalid name ' ': must not be blank");
	}

}
