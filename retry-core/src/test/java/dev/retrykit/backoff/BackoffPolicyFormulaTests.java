package dev.retrykit.backoff;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * The formula of every {@link BackoffType} at retries 1 to 6, with a fixed random number, d = 100ms,
 * m = 2 and a maximum (1h) that none of these delays reaches.
 */
class BackoffPolicyFormulaTests {

	private static final double D = 100_000_000.0;

	private static final double M = 2.0;

	private static final double MAX = Duration.ofHours(1).toNanos();

	@Test
	void noneIsAlwaysZero() {
		assertDelays(BackoffType.NONE, 0.5, 0, 0, 0, 0, 0, 0);
	}

	@Test
	void fixedIsAlwaysTheDelay() {
		assertDelays(BackoffType.FIXED, 0.5, 100, 100, 100, 100, 100, 100);
	}

	@Test
	void linearGrowsByTheDelayEachRetry() {
		assertDelays(BackoffType.LINEAR, 0.5, 100, 200, 300, 400, 500, 600);
	}

	@Test
	void exponentialMultipliesEachRetry() {
		assertDelays(BackoffType.EXPONENTIAL, 0.5, 100, 200, 400, 800, 1600, 3200);
	}

	@Test
	void exponentialRandomLiesBetweenThisAndTheNextExponentialDelay() {
		assertDelays(BackoffType.EXPONENTIAL_RANDOM, 0.5, 150, 300, 600, 1200, 2400, 4800);
	}

	@Test
	void uniformRandomLiesBetweenDelayAndMaxDelay() {
		double halfway = (100 + Duration.ofHours(1).toMillis()) / 2.0;
		assertDelays(BackoffType.UNIFORM_RANDOM, 0.5, halfway, halfway, halfway, halfway, halfway, halfway);
	}

	@Test
	void fibonacciFollowsTheSequence() {
		assertDelays(BackoffType.FIBONACCI, 0.5, 100, 100, 200, 300, 500, 800);
	}

	@Test
	void fullJitterScalesTheExponentialDelay() {
		assertDelays(BackoffType.FULL_JITTER, 0.5, 50, 100, 200, 400, 800, 1600);
	}

	@Test
	void equalJitterKeepsHalfTheExponentialDelay() {
		assertDelays(BackoffType.EQUAL_JITTER, 0.5, 75, 150, 300, 600, 1200, 2400);
	}

	@Test
	void decorrelatedJitterGrowsFromThePreviousDelay() {
		BackoffPolicy policy = policy(BackoffType.DECORRELATED_JITTER, 0.5);
		double[] expectedMillis = { 200, 350, 575, 912.5, 1418.75, 2178.125 };
		long previous = 0;
		for (int retry = 1; retry <= 6; retry++) {
			long delay = policy.nextDelayNanos(retry, previous);
			assertThat(delay).as("retry %d", retry).isEqualTo(millis(expectedMillis[retry - 1]));
			previous = delay;
		}
	}

	@ParameterizedTest
	@ValueSource(doubles = { 0.0, 0.5, 0.999 })
	void everyTypeMatchesTheDesignTable(double r) {
		for (int n = 1; n <= 6; n++) {
			double e = D * Math.pow(M, n - 1);
			assertDelay(BackoffType.NONE, r, n, 0);
			assertDelay(BackoffType.FIXED, r, n, D);
			assertDelay(BackoffType.LINEAR, r, n, D * n);
			assertDelay(BackoffType.EXPONENTIAL, r, n, e);
			assertDelay(BackoffType.EXPONENTIAL_RANDOM, r, n, e * (1 + r * (M - 1)));
			assertDelay(BackoffType.UNIFORM_RANDOM, r, n, D + r * (MAX - D));
			assertDelay(BackoffType.FIBONACCI, r, n, D * new int[] { 1, 1, 2, 3, 5, 8 }[n - 1]);
			assertDelay(BackoffType.FULL_JITTER, r, n, r * e);
			assertDelay(BackoffType.EQUAL_JITTER, r, n, e / 2 + r * e / 2);
		}
	}

	@ParameterizedTest
	@ValueSource(doubles = { 0.0, 0.5, 0.999 })
	void decorrelatedJitterMatchesTheDesignTable(double r) {
		BackoffPolicy policy = policy(BackoffType.DECORRELATED_JITTER, r);
		double previous = D;
		long previousNanos = 0;
		for (int n = 1; n <= 6; n++) {
			double expected = Math.min(MAX, D + r * (3 * previous - D));
			long delay = policy.nextDelayNanos(n, previousNanos);
			assertThat((double) delay).as("retry %d", n).isCloseTo(expected, within(1.0));
			previous = delay;
			previousNanos = delay;
		}
	}

	@Test
	void decorrelatedJitterStartsFromTheDelayWhenThereIsNoPreviousDelay() {
		BackoffPolicy policy = policy(BackoffType.DECORRELATED_JITTER, 0.5);
		assertThat(policy.nextDelayNanos(1, 0)).isEqualTo(millis(200));
		assertThat(policy.nextDelayNanos(1, millis(100))).isEqualTo(millis(200));
	}

	@Test
	void decorrelatedJitterUsesTheGivenPreviousDelay() {
		BackoffPolicy policy = policy(BackoffType.DECORRELATED_JITTER, 0.5);
		assertThat(policy.nextDelayNanos(2, millis(200))).isEqualTo(millis(350));
		assertThat(policy.nextDelayNanos(2, millis(1000))).isEqualTo(millis(1550));
		assertThat(policy.nextDelayNanos(2, Duration.ofHours(1).toNanos())).isEqualTo((long) MAX);
	}

	@Test
	void exponentialRandomWithMultiplierOneIsTheDelay() {
		BackoffPolicy policy = BackoffPolicy.builder().type(BackoffType.EXPONENTIAL_RANDOM).multiplier(1.0)
			.random(() -> 0.999)
			.build();
		assertThat(policy.nextDelayNanos(5, 0)).isEqualTo(millis(100));
	}

	@Test
	void zeroDelayStaysZeroForEveryGrowingType() {
		for (BackoffType type : new BackoffType[] { BackoffType.LINEAR, BackoffType.EXPONENTIAL,
				BackoffType.EXPONENTIAL_RANDOM, BackoffType.FIBONACCI, BackoffType.FULL_JITTER,
				BackoffType.EQUAL_JITTER, BackoffType.DECORRELATED_JITTER }) {
			BackoffPolicy policy = BackoffPolicy.builder().type(type).delay(Duration.ZERO).random(() -> 0.5).build();
			assertThat(policy.nextDelayNanos(Integer.MAX_VALUE, 0)).as(type.getId()).isZero();
		}
	}

	@Test
	void retryBelowOneIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.defaults().nextDelayNanos(0, 0))
			.withMessage("Invalid retry (0): must be 1 or greater");
	}

	@Test
	void negativePreviousDelayIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.defaults().nextDelayNanos(1, -5))
			.withMessage("Invalid previousDelayNanos (-5): must be zero or greater");
	}

	private static void assertDelays(BackoffType type, double r, double... expectedMillis) {
		BackoffPolicy policy = policy(type, r);
		for (int retry = 1; retry <= expectedMillis.length; retry++) {
			assertThat(policy.nextDelayNanos(retry, 0)).as("%s retry %d", type.getId(), retry)
				.isEqualTo(millis(expectedMillis[retry - 1]));
		}
	}

	private static void assertDelay(BackoffType type, double r, int retry, double expectedNanos) {
		assertThat((double) policy(type, r).nextDelayNanos(retry, 0)).as("%s retry %d r %s", type.getId(), retry, r)
			.isCloseTo(expectedNanos, within(1.0));
	}

	static BackoffPolicy policy(BackoffType type, double r) {
		return BackoffPolicy.builder()
			.type(type)
			.delay(Duration.ofMillis(100))
			.multiplier(M)
			.maxDelay(Duration.ofHours(1))
			.random(() -> r)
			.build();
	}

	static long millis(double millis) {
		return Math.round(millis * 1_000_000.0);
	}

}
