package dev.retrykit.circuit;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static dev.retrykit.circuit.PermittedCalls.admit;
import static dev.retrykit.circuit.PermittedCalls.assertRejected;
import static dev.retrykit.circuit.PermittedCalls.fail;
import static dev.retrykit.circuit.PermittedCalls.succeed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/** Manual control, listeners, standalone execution and the rejection exception. */
class CircuitBreakerControlTests {

	private final FakeTimeSource clock = new FakeTimeSource();

	private final CircuitBreaker breaker = CircuitBreaker.create("inventory",
			CircuitBreakerConfig.builder().trip("consecutiveFailures > 1").timeout(Duration.ofSeconds(30)).build(), this.clock);

	private final List<String> transitions = new CopyOnWriteArrayList<>();

	CircuitBreakerControlTests() {
		this.breaker.addStateListener((source, from, to) -> this.transitions.add(source.getName() + ": " + from + " -> " + to));
	}

	private void trip() {
		fail(this.breaker, 2);
	}

	@Test
	void listenersSeeEveryTransitionOnce() {
		trip();
		this.clock.advance(Duration.ofSeconds(30));
		fail(this.breaker, 1);
		this.clock.advance(Duration.ofSeconds(30));
		succeed(this.breaker, 1);
		assertThat(this.transitions).containsExactly(
				"inventory: CLOSED -> OPEN",
				"inventory: OPEN -> HALF_OPEN",
				"inventory: HALF_OPEN -> OPEN",
				"inventory: OPEN -> HALF_OPEN",
				"inventory: HALF_OPEN -> CLOSED");
	}

	@Test
	void forcedOpenIgnoresTheTimeoutUntilClosed() {
		this.breaker.forceOpen();
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(this.breaker.isForcedOpen()).isTrue();
		assertThat(this.breaker.getRemainingOpenNanos()).isEqualTo(Long.MAX_VALUE);
		this.clock.advance(Duration.ofDays(1));
		assertRejected(this.breaker);
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.OPEN);
		this.breaker.close();
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.CLOSED);
		assertThat(this.breaker.isForcedOpen()).isFalse();
		admit(this.breaker);
		assertThat(this.transitions).containsExactly("inventory: CLOSED -> OPEN", "inventory: OPEN -> CLOSED");
	}

	@Test
	void forcingAnOpenCircuitKeepsItOpenWithoutANewNotification() {
		trip();
		this.breaker.forceOpen();
		this.breaker.forceOpen();
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(this.transitions).containsExactly("inventory: CLOSED -> OPEN");
	}

	@Test
	void manualControlWorksFromHalfOpen() {
		trip();
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		this.breaker.forceOpen();
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.OPEN);
		this.breaker.close();
		this.breaker.close();
		assertThat(this.transitions).containsExactly("inventory: CLOSED -> OPEN", "inventory: OPEN -> HALF_OPEN",
				"inventory: HALF_OPEN -> OPEN", "inventory: OPEN -> CLOSED");
	}

	@Test
	void closingStartsWithFreshCounts() {
		fail(this.breaker, 1);
		this.breaker.forceOpen();
		this.breaker.close();
		fail(this.breaker, 1);
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.CLOSED);
		assertThat(this.breaker.getMetrics().consecutiveFailures()).isEqualTo(1);
	}

	@Test
	void aThrowingListenerIsCountedAndNeverBreaksTheBreaker() {
		AtomicInteger later = new AtomicInteger();
		CircuitBreaker breaker = CircuitBreaker.create("db", CircuitBreakerConfig.ofDefaults(), this.clock);
		breaker.addStateListener((source, from, to) -> {
			throw new IllegalStateException("listener bug");
		});
		breaker.addStateListener((source, from, to) -> later.incrementAndGet());
		breaker.forceOpen();
		breaker.close();
		assertThat(breaker.getListenerFailureCount()).isEqualTo(2);
		assertThat(later).hasValue(2);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		admit(breaker);
	}

	@Test
	void removedListenersAreNotCalled() {
		AtomicInteger calls = new AtomicInteger();
		CircuitStateListener listener = (source, from, to) -> calls.incrementAndGet();
		this.breaker.addStateListener(listener);
		assertThat(this.breaker.removeStateListener(listener)).isTrue();
		assertThat(this.breaker.removeStateListener(listener)).isFalse();
		this.breaker.forceOpen();
		assertThat(calls).hasValue(0);
		assertThatNullPointerException().isThrownBy(() -> this.breaker.addStateListener(null));
	}

	@Test
	void rejectionNamesTheBreakerAndTheRemainingOpenTime() {
		trip();
		this.clock.advance(Duration.ofMillis(17_700));
		CircuitOpenException ex = this.breaker.newCircuitOpenException(null);
		assertThat(ex).hasMessage("Circuit breaker 'inventory' is OPEN; calls are rejected for another 12.3s");
		assertThat(ex.getName()).isEqualTo("inventory");
		assertThat(ex.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(ex.getRemainingOpen()).isEqualTo(Duration.ofMillis(12_300));
		assertThat(ex.isForcedOpen()).isFalse();
		assertThat(ex.getStackTrace()).isEmpty();
		assertThat(ex).hasNoCause();
	}

	@Test
	void aForcedOpenCircuitIsOpenForeverAndOnlyItIs() {
		CircuitBreaker longest = CircuitBreaker.create("inventory", CircuitBreakerConfig.builder()
			.trip("consecutiveFailures > 0").timeout(Duration.ofNanos(Long.MAX_VALUE)).build(), this.clock);
		fail(longest, 1);
		assertThat(longest.getState()).isEqualTo(CircuitState.OPEN);
		assertThat(longest.getRemainingOpenNanos()).isLessThan(CircuitOpenException.FOREVER);
		assertThat(longest.newCircuitOpenException(null).isForcedOpen()).isFalse();
		longest.forceOpen();
		assertThat(longest.getRemainingOpenNanos()).isEqualTo(CircuitOpenException.FOREVER);
		assertThat(longest.newCircuitOpenException(null).isForcedOpen()).isTrue();
	}

	@Test
	void rejectionMessagesForTheOtherStates() {
		this.breaker.forceOpen();
		CircuitOpenException forced = this.breaker.newCircuitOpenException(null);
		assertThat(forced).hasMessage("Circuit breaker 'inventory' was forced OPEN; calls are rejected until it is closed");
		assertThat(forced.isForcedOpen()).isTrue();
		this.breaker.close();
		trip();
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(this.breaker.newCircuitOpenException(null))
				.hasMessage("Circuit breaker 'inventory' is OPEN; its timeout has passed, the next call will be a trial call");
		admit(this.breaker);
		CircuitOpenException halfOpen = this.breaker.newCircuitOpenException(null);
		assertThat(halfOpen).hasMessage("Circuit breaker 'inventory' is HALF_OPEN; calls are rejected while its trial calls are in progress");
		assertThat(halfOpen.getRemainingOpen()).isZero();
		assertThat(new CircuitOpenException("x", CircuitState.CLOSED, 0))
				.hasMessage("Circuit breaker 'x' rejected the call while changing state; it is now CLOSED");
	}

	@Test
	void executeRunsTheCallAndRecordsItsOutcome() throws Exception {
		assertThat(this.breaker.execute(() -> "stock")).isEqualTo("stock");
		IOException failure = new IOException("down");
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> this.breaker.execute(() -> {
			throw failure;
		})).isSameAs(failure);
		assertThat(this.breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.CLOSED, 1, 1, 1, 0));
	}

	@Test
	void executeCountsErrorsAsFailures() {
		AssertionError error = new AssertionError("boom");
		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> this.breaker.execute(() -> {
				throw error;
			})).isSameAs(error);
		}
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void executeRejectsWithoutRunningTheCallWhileOpen() {
		trip();
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(CircuitOpenException.class).isThrownBy(() -> this.breaker.execute(runs::incrementAndGet))
				.withMessage("Circuit breaker 'inventory' is OPEN; calls are rejected for another 30s");
		assertThat(runs).hasValue(0);
	}

	@Test
	void executeReleasesTheTrialSlotOfAnInterruptedCall() {
		trip();
		this.clock.advance(Duration.ofSeconds(30));
		assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> this.breaker.execute(() -> {
			throw new InterruptedException();
		}));
		assertThat(this.breaker.getState()).isEqualTo(CircuitState.HALF_OPEN);
		assertThat(this.breaker.getMetrics().trialCallsInFlight()).isZero();
	}

	@Test
	void toStringShowsNameStateCountsAndConfig() {
		fail(this.breaker, 1);
		assertThat(this.breaker).hasToString("CircuitBreaker{name='inventory', state=CLOSED, consecutiveFailures=1, "
				+ "totalFailures=1, totalSuccesses=0, config=CircuitBreakerConfig{trip='consecutiveFailures > 1', "
				+ "interval=0s, timeout=30s, maxRequests=1}}");
		this.breaker.forceOpen();
		assertThat(this.breaker.toString()).startsWith("CircuitBreaker{name='inventory', state=OPEN (forced), ");
		assertThat(this.breaker.getName()).isEqualTo("inventory");
		assertThat(this.breaker.getConfig().getTrip()).isEqualTo("consecutiveFailures > 1");
	}

}
