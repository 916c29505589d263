package dev.retrykit.backoff;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.testing.Allocations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cap at the maximum delay, overflow at huge retry numbers, and jitter.
 */
class BackoffPolicyBoundsTests {

	private static final Duration MAX = Duration.ofSeconds(1);

	private static final long MAX_NANOS = MAX.toNanos();

	/**
	 * The types whose delay keeps growing with the retry number until it reaches the maximum; the same
	 * names as in {@link #growingTypesReachExactlyMaxDelay}'s {@code @EnumSource}.
	 */
	private static final Set<BackoffType> GROWING = EnumSet.of(BackoffType.LINEAR, BackoffType.EXPONENTIAL,
			BackoffType.EXPONENTIAL_RANDOM, BackoffType.FIBONACCI);

	@ParameterizedTest
	@EnumSource(BackoffType.class)
	void everyTypeIsCappedAtMaxDelay(BackoffType type) {
		for (double r : new double[] { 0.0, 0.5, 0.999 }) {
			BackoffPolicy policy = policy(type, r, 0.0);
			long previous = 0;
			for (int retry = 1; retry <= 100; retry++) {
				long delay = policy.nextDelayNanos(retry, previous);
				assertThat(delay).as("%s retry %d r %s", type.getId(), retry, r).isBetween(0L, MAX_NANOS);
				previous = delay;
			}
		}
	}

	@ParameterizedTest
	@EnumSource(value = BackoffType.class, names = { "LINEAR", "EXPONENTIAL", "EXPONENTIAL_RANDOM", "FIBONACCI" })
	void growingTypesReachExactlyMaxDelay(BackoffType type) {
		assertThat(policy(type, 0.5, 0.0).nextDelayNanos(20, 0)).isEqualTo(MAX_NANOS);
	}

	@ParameterizedTest
	@ValueSource(ints = { 10_000, Integer.MAX_VALUE })
	void hugeRetryNumbersNeverOverflow(int retry) {
		for (BackoffType type : BackoffType.values()) {
			for (double r : new double[] { 0.0, 0.5, 0.999 }) {
				long delay = policy(type, r, 0.0).nextDelayNanos(retry, MAX_NANOS);
				assertThat(delay).as("%s r %s", type.getId(), r).isBetween(0L, MAX_NANOS);
				if (GROWING.contains(type)) {
					assertThat(delay).as("%s r %s", type.getId(), r).isEqualTo(MAX_NANOS);
				}
			}
		}
	}

	@ParameterizedTest
	@ValueSource(ints = { 10_000, Integer.MAX_VALUE })
	void hugeRetryNumbersGiveTheCappedDelayOfEachType(int retry) {
		assertThat(policy(BackoffType.NONE, 0.5, 0.0).nextDelayNanos(retry, 0)).isZero();
		assertThat(policy(BackoffType.FIXED, 0.5, 0.0).nextDelayNanos(retry, 0)).isEqualTo(100_000_000L);
		assertThat(policy(BackoffType.FULL_JITTER, 0.5, 0.0).nextDelayNanos(retry, 0)).isEqualTo(MAX_NANOS / 2);
		assertThat(policy(BackoffType.EQUAL_JITTER, 0.5, 0.0).nextDelayNanos(retry, 0)).isEqualTo(MAX_NANOS * 3 / 4);
		assertThat(policy(BackoffType.DECORRELATED_JITTER, 0.5, 0.0).nextDelayNanos(retry, Long.MAX_VALUE))
			.isEqualTo(MAX_NANOS);
	}

	@ParameterizedTest
	@EnumSource(BackoffType.class)
	void longestMaxDelayIsReachedExactlyWithoutOverflow(BackoffType type) {
		Duration longest = Duration.ofNanos(Long.MAX_VALUE);
		BackoffPolicy policy = BackoffPolicy.builder()
			.type(type)
			.delay(Duration.ofSeconds(10))
			.maxDelay(longest)
			.jitter(1.0)
			.random(() -> 0.999)
			.build();
		long delay = policy.nextDelayNanos(Integer.MAX_VALUE, Long.MAX_VALUE);
		assertThat(delay).as(type.getId()).isBetween(0L, Long.MAX_VALUE);
		if (GROWING.contains(type)) {
			assertThat(delay).as(type.getId()).isEqualTo(Long.MAX_VALUE);
		}
	}

	@ParameterizedTest
	@EnumSource(BackoffType.class)
	void jitteredDelaysStayWithinTheJitterRangeAndMaxDelay(BackoffType type) {
		double jitter = 0.5;
		BackoffPolicy plain = policy(type, 0.5, 0.0);
		BackoffPolicy jittered = BackoffPolicy.builder(plain)
			.jitter(jitter)
			.random(BackoffPolicy.THREAD_LOCAL_RANDOM)
			.build();
		boolean deterministic = !type.name().contains("RANDOM") && !type.name().contains("JITTER");
		for (int retry = 1; retry <= 8; retry++) {
			long x = plain.nextDelayNanos(retry, 0);
			for (int sample = 0; sample < 2_000; sample++) {
				long delay = jittered.nextDelayNanos(retry, 0);
				assertThat(delay).isBetween(0L, MAX_NANOS);
				if (deterministic) {
					long low = (long) Math.floor(x * (1 - jitter));
					long high = Math.min(MAX_NANOS, (long) Math.ceil(x * (1 + jitter)));
					assertThat(delay).as("%s retry %d", type.getId(), retry).isBetween(low, high);
				}
			}
		}
	}

	@Test
	void jitterIsAppliedToTheDeterministicDelay() {
		assertThat(policy(BackoffType.FIXED, 0.0, 0.5).nextDelayNanos(1, 0)).isEqualTo(50_000_000L);
		assertThat(policy(BackoffType.FIXED, 0.5, 0.5).nextDelayNanos(1, 0)).isEqualTo(100_000_000L);
		assertThat(policy(BackoffType.FIXED, 0.999, 0.5).nextDelayNanos(1, 0)).isEqualTo(149_900_000L);
		assertThat(policy(BackoffType.FIXED, 0.0, 1.0).nextDelayNanos(1, 0)).isZero();
	}

	@Test
	void jitterIsClampedIntoMaxDelay() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.type(BackoffType.FIXED)
			.delay(MAX)
			.maxDelay(MAX)
			.jitter(0.5)
			.random(() -> 0.999)
			.build();
		assertThat(policy.nextDelayNanos(1, 0)).isEqualTo(MAX_NANOS);
		assertThat(policy(BackoffType.EXPONENTIAL, 0.999, 1.0).nextDelayNanos(Integer.MAX_VALUE, 0))
			.isEqualTo(MAX_NANOS);
	}

	@ParameterizedTest
	@EnumSource(value = BackoffType.class, names = { "NONE", "FIXED", "LINEAR", "EXPONENTIAL", "FIBONACCI" })
	void withoutJitterDeterministicTypesNeverDrawARandomNumber(BackoffType type) {
		AtomicInteger draws = new AtomicInteger();
		BackoffPolicy policy = BackoffPolicy.builder().type(type).random(() -> {
			draws.incrementAndGet();
			return 0.5;
		}).build();
		for (int retry = 1; retry <= 100; retry++) {
			policy.nextDelayNanos(retry, 0);
		}
		policy.nextDelayNanos(Integer.MAX_VALUE, 0);
		assertThat(draws).as(type.getId()).hasValue(0);
	}

	@ParameterizedTest
	@EnumSource(value = BackoffType.class,
			names = { "EXPONENTIAL_RANDOM", "UNIFORM_RANDOM", "FULL_JITTER", "EQUAL_JITTER", "DECORRELATED_JITTER" })
	void randomTypesDrawOneNumberAndAnotherForJitter(BackoffType type) {
		AtomicInteger draws = new AtomicInteger();
		BackoffPolicy policy = BackoffPolicy.builder().type(type).random(() -> {
			draws.incrementAndGet();
			return 0.5;
		}).build();
		policy.nextDelayNanos(1, 0);
		assertThat(draws).hasValue(1);
		BackoffPolicy.builder(policy).jitter(0.1).build().nextDelayNanos(1, 0);
		assertThat(draws).hasValue(3);
	}

	@Test
	void faultyRandomSourceStillGivesDelaysWithinMaxDelay() {
		for (double r : new double[] { -1.0, 2.0, Double.NaN, Double.POSITIVE_INFINITY }) {
			for (BackoffType type : BackoffType.values()) {
				assertThat(policy(type, r, 1.0).nextDelayNanos(3, 0)).as("%s r %s", type.getId(), r)
					.isBetween(0L, MAX_NANOS);
			}
		}
	}

	@Test
	void startReturnsTheSameInstance() {
		BackoffPolicy policy = BackoffPolicy.defaults();
		assertThat(policy.start()).isSameAs(policy);
		assertThat(policy.start()).isSameAs(policy.start());
	}

	@Test
	void computingDelaysAllocatesNothing() {
		BackoffType[] types = BackoffType.values();
		BackoffPolicy[] policies = new BackoffPolicy[types.length];
		for (int i = 0; i < types.length; i++) {
			policies[i] = BackoffPolicy.builder().type(types[i]).jitter(0.5).build();
		}
		long warmUp = runAll(policies, 20_000);
		long[] measured = new long[1];
		long allocated = Allocations.measure(() -> (measured[0] = runAll(policies, 100_000)) > 0);
		assertThat(warmUp).isPositive();
		assertThat(measured[0]).isPositive();
		// A single boxed long per call would be over 16 MB here; allow some bytes of measuring noise.
		assertThat(allocated).isLessThan(64 * 1024L);
	}

	private static long runAll(BackoffPolicy[] policies, int calls) {
		long sum = 0;
		for (int call = 0; call < calls; call++) {
			for (BackoffPolicy policy : policies) {
				long delay = policy.start().nextDelayNanos((call % 40) + 1, sum & 0xFFFF);
				sum += delay;
			}
		}
		return sum;
	}

	private static BackoffPolicy policy(BackoffType type, double r, double jitter) {
		return BackoffPolicy.builder()
			.type(type)
			.delay(Duration.ofMillis(100))
			.multiplier(2.0)
			.maxDelay(MAX)
			.jitter(jitter)
			.random(() -> r)
			.build();
	}

}
