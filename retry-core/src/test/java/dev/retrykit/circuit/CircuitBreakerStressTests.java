package dev.retrykit.circuit;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/** Many threads acquiring and reporting permits on one breaker: admission limits hold and no transition is lost. */
@Timeout(30)
class CircuitBreakerStressTests {

	private static final int THREADS = 8;

	private final FakeTimeSource clock = new FakeTimeSource();

	@Test
	void halfOpenNeverAdmitsMoreThanMaxRequestsAtOnce() throws Exception {
		CircuitBreaker breaker = CircuitBreaker.create("stress", CircuitBreakerConfig.builder()
				.trip("consecutiveFailures > 0").timeout(Duration.ofSeconds(1)).maxRequests(3).build(), this.clock);
		breaker.onFailure(breaker.acquirePermission());
		this.clock.advance(Duration.ofSeconds(1));
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		AtomicInteger admitted = new AtomicInteger();
		Concurrently.run(THREADS, index -> {
			for (int i = 0; i < 100_000; i++) {
				long permit = breaker.acquirePermission();
				if (permit != CircuitBreaker.NO_PERMISSION) {
					mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
					admitted.incrementAndGet();
					inFlight.decrementAndGet();
					breaker.releasePermission(permit);
				}
			}
		});
		assertThat(mostAtOnce.get()).isBetween(1, 3);
		assertThat(admitted.get()).isGreaterThan(1000);
		assertThat(breaker.getMetrics()).isEqualTo(new CircuitBreakerMetrics(CircuitState.HALF_OPEN, 0, 0, 0, 0));
	}

	@Test
	void churningThroughEveryStateKeepsTrialLimitsAndLosesNoTransition() throws Exception {
		int maxRequests = 2;
		CircuitBreaker breaker = CircuitBreaker.create("stress", CircuitBreakerConfig.builder()
				.trip("consecutiveFailures > 2").timeout(Duration.ofNanos(50_000)).maxRequests(maxRequests).build(), this.clock);
		TransitionCounter transitions = new TransitionCounter();
		breaker.addStateListener(transitions);
		Map<Long, AtomicInteger> trialsInFlight = new ConcurrentHashMap<>();
		AtomicInteger mostTrialsAtOnce = new AtomicInteger();
		Concurrently.run(THREADS, index -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			for (int i = 0; i < 50_000; i++) {
				this.clock.advanceNanos(1_000);
				long permit = breaker.acquirePermission();
				if (permit == CircuitBreaker.NO_PERMISSION) {
					continue;
				}
				if (isTrial(permit)) {
					AtomicInteger trials = trialsInFlight.computeIfAbsent(permit, key -> new AtomicInteger());
					mostTrialsAtOnce.accumulateAndGet(trials.incrementAndGet(), Math::max);
					trials.decrementAndGet();
				}
				int outcome = random.nextInt(10);
				if (outcome < 5) {
					breaker.onSuccess(permit);
				}
				else if (outcome < 9) {
					breaker.onFailure(permit);
				}
				else {
					breaker.releasePermission(permit);
				}
			}
		});
		CircuitState last = breaker.getState();
		assertThat(transitions.illegal()).as("illegal transitions").isZero();
		assertThat(transitions.total()).as("transitions").isGreaterThan(100);
		transitions.assertConsistentWith(last);
		assertThat(trialsInFlight).as("half-open periods").isNotEmpty();
		assertThat(mostTrialsAtOnce.get()).isBetween(1, maxRequests);
	}

	@Test
	void permitsReportedLateLoseNoTransitionAndFreeNoSlotOfALaterTrial() throws Exception {
		int maxRequests = 3;
		CircuitBreaker breaker = CircuitBreaker.create("stress", CircuitBreakerConfig.builder()
				.trip("consecutiveFailures > 1").timeout(Duration.ofNanos(20_000)).maxRequests(maxRequests).build(), this.clock);
		TransitionCounter transitions = new TransitionCounter();
		breaker.addStateListener(transitions);
		Map<Long, AtomicInteger> trialsHeld = new ConcurrentHashMap<>();
		AtomicInteger mostTrialsAtOnce = new AtomicInteger();
		AtomicInteger lateReports = new AtomicInteger();
		Concurrently.run(THREADS, index -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			// Each thread holds up to four calls in flight and ends them in random order, often after the
			// breaker has moved on to another generation.
			long[] held = new long[4];
			long[] transitionsAtGrant = new long[held.length];
			int holding = 0;
			for (int i = 0; i < 50_000; i++) {
				this.clock.advanceNanos(1_000);
				if (holding < held.length) {
					long permit = breaker.acquirePermission();
					if (permit != CircuitBreaker.NO_PERMISSION) {
						if (isTrial(permit)) {
							AtomicInteger trials = trialsHeld.computeIfAbsent(permit, key -> new AtomicInteger());
							mostTrialsAtOnce.accumulateAndGet(trials.incrementAndGet(), Math::max);
						}
						held[holding] = permit;
						transitionsAtGrant[holding] = transitions.total();
						holding++;
					}
				}
				if (holding > 0 && (holding == held.length || random.nextBoolean())) {
					int pick = random.nextInt(holding);
					if (transitions.total() > transitionsAtGrant[pick]) {
						lateReports.incrementAndGet();
					}
					report(breaker, held[pick], random.nextInt(10), trialsHeld);
					holding--;
					held[pick] = held[holding];
					transitionsAtGrant[pick] = transitionsAtGrant[holding];
				}
			}
			while (holding > 0) {
				holding--;
				report(breaker, held[holding], random.nextInt(10), trialsHeld);
			}
		});
		CircuitState last = breaker.getState();
		assertThat(transitions.illegal()).as("illegal transitions").isZero();
		assertThat(transitions.total()).as("transitions").isGreaterThan(100);
		transitions.assertConsistentWith(last);
		assertThat(lateReports.get()).as("permits reported after the breaker had changed state").isGreaterThan(100);
		assertThat(trialsHeld).as("half-open periods").isNotEmpty();
		assertThat(mostTrialsAtOnce.get()).isBetween(1, maxRequests);
		assertThat(breaker.getMetrics().trialCallsInFlight()).as("trial slots left taken once every permit was reported").isZero();
	}

	/** Ends a held call: {@code roll} 0-5 succeeds, 6-8 fails, 9 is cancelled. */
	private static void report(CircuitBreaker breaker, long permit, int roll, Map<Long, AtomicInteger> trialsHeld) {
		if (isTrial(permit)) {
			trialsHeld.get(permit).decrementAndGet();
		}
		if (roll < 6) {
			breaker.onSuccess(permit);
		}
		else if (roll < 9) {
			breaker.onFailure(permit);
		}
		else {
			breaker.releasePermission(permit);
		}
	}

	/**
	 * Whether a permit was granted half-open, i.e. to a trial call. No caller of the breaker needs to
	 * know, so it does not say; this reads the encoding of {@code CircuitWindow.permit}: the state's
	 * ordinal in the low two bits. Should the encoding change, the tests using this fail (no half-open
	 * period seen, or more than {@code maxRequests} "trials" at once) rather than pass unchecked.
	 */
	private static boolean isTrial(long permit) {
		return (permit & 3) == CircuitState.HALF_OPEN.ordinal();
	}

	/** Counts transitions by (from, to) and flags any the automatic cycle cannot make. */
	private static final class TransitionCounter implements CircuitStateListener {

		private static final int STATES = CircuitState.values().length;

		private final AtomicLongArray counts = new AtomicLongArray(STATES * STATES);

		private final AtomicInteger illegal = new AtomicInteger();

		private final AtomicLong total = new AtomicLong();

		@Override
		public void onStateChange(CircuitBreaker breaker, CircuitState from, CircuitState to) {
			boolean legal = (from == CircuitState.CLOSED && to == CircuitState.OPEN)
					|| (from == CircuitState.OPEN && to == CircuitState.HALF_OPEN)
					|| (from == CircuitState.HALF_OPEN && to != CircuitState.HALF_OPEN);
			if (!legal) {
				this.illegal.incrementAndGet();
			}
			this.counts.incrementAndGet(from.ordinal() * STATES + to.ordinal());
			this.total.incrementAndGet();
		}

		int illegal() {
			return this.illegal.get();
		}

		/** @return the transitions heard so far */
		long total() {
			return this.total.get();
		}

		/** Starting closed and ending in {@code last}, each state was entered as often as left, give or take one. */
		void assertConsistentWith(CircuitState last) {
			for (CircuitState state : CircuitState.values()) {
				long entered = 0;
				long left = 0;
				for (CircuitState other : CircuitState.values()) {
					entered += this.counts.get(other.ordinal() * STATES + state.ordinal());
					left += this.counts.get(state.ordinal() * STATES + other.ordinal());
				}
				long expected = ((state == last) ? 1 : 0) - ((state == CircuitState.CLOSED) ? 1 : 0);
				assertThat(entered - left).as("entries minus exits of %s (ended %s)", state, last).isEqualTo(expected);
			}
		}

	}

}
