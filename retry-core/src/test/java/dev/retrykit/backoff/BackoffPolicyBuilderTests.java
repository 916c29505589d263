package dev.retrykit.backoff;

import java.time.Duration;
import java.util.function.DoubleSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Validation, inheritance through {@code builder(base)}, the factories, equality and {@code toString}.
 */
class BackoffPolicyBuilderTests {

	@Test
	void defaultsFollowTheDesign() {
		BackoffPolicy policy = BackoffPolicy.defaults();
		assertThat(policy.getType()).isEqualTo(BackoffType.EXPONENTIAL);
		assertThat(policy.getDelay()).isEqualTo(Duration.ofMillis(100));
		assertThat(policy.getMultiplier()).isEqualTo(2.0);
		assertThat(policy.getMaxDelay()).isEqualTo(Duration.ofSeconds(10));
		assertThat(policy.getJitter()).isZero();
		assertThat(BackoffPolicy.builder().build()).isEqualTo(policy);
	}

	@Test
	void negativeDelayIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.builder().delay(Duration.ofSeconds(-1)))
			.withMessage("Invalid delay (-1s): must be zero or greater");
	}

	@Test
	void negativeMaxDelayIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BackoffPolicy.builder().maxDelay(Duration.ofMillis(-1500)))
			.withMessage("Invalid maxDelay (-1s500ms): must be zero or greater");
	}

	@Test
	void durationsBeyondLongNanosAreRejected() {
		Duration tooLong = Duration.ofNanos(Long.MAX_VALUE).plusNanos(1);
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.builder().delay(tooLong))
			.withMessage("Invalid delay (106751d23h47m16s854ms775us808ns): "
					+ "must be at most Long.MAX_VALUE nanoseconds (about 292 years)");
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.builder().maxDelay(tooLong))
			.withMessageStartingWith("Invalid maxDelay (106751d23h47m16s854ms775us808ns): must be at most");
	}

	@Test
	void maxDelayShorterThanDelayIsRejectedOnBuild() {
		BackoffPolicyBuilder builder = BackoffPolicy.builder()
			.delay(Duration.ofSeconds(2))
			.maxDelay(Duration.ofSeconds(1));
		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessage("Invalid maxDelay (1s): must be greater than or equal to delay (2s)");
	}

	@Test
	void maxDelayEqualToDelayIsAccepted() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.delay(Duration.ofSeconds(1))
			.maxDelay(Duration.ofSeconds(1))
			.build();
		assertThat(policy.getMaxDelay()).isEqualTo(policy.getDelay());
	}

	@ParameterizedTest
	@EnumSource(value = BackoffType.class,
			names = { "EXPONENTIAL", "EXPONENTIAL_RANDOM", "FULL_JITTER", "EQUAL_JITTER" })
	void multiplierBelowOneIsRejectedOnBuildForExponentialTypes(BackoffType type) {
		BackoffPolicyBuilder builder = BackoffPolicy.builder().type(type).multiplier(0.5);
		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessage("Invalid multiplier (0.5): must be 1.0 or greater for backoff type '" + type.getId() + "'");
	}

	@Test
	void multiplierBelowOneIsAcceptedForTypesThatIgnoreIt() {
		BackoffPolicy policy = BackoffPolicy.builder().type(BackoffType.FIXED).multiplier(0.5).build();
		assertThat(policy.getMultiplier()).isEqualTo(0.5);
	}

	@ParameterizedTest
	@ValueSource(doubles = { 0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY })
	void multiplierThatIsNotAPositiveNumberIsRejected(double multiplier) {
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.builder().multiplier(multiplier))
			.withMessage("Invalid multiplier (" + multiplier + "): must be a finite number greater than 0");
	}

	@ParameterizedTest
	@ValueSource(doubles = { 1.5, -0.1, Double.NaN })
	void jitterOutsideZeroToOneIsRejected(double jitter) {
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffPolicy.builder().jitter(jitter))
			.withMessage("Invalid jitter (" + jitter + "): must be between 0.0 and 1.0");
	}

	@Test
	void jitterBoundsAreAccepted() {
		assertThat(BackoffPolicy.builder().jitter(0.0).build().getJitter()).isZero();
		assertThat(BackoffPolicy.builder().jitter(1.0).build().getJitter()).isEqualTo(1.0);
	}

	@Test
	void nullArgumentsAreRejectedWithTheirName() {
		BackoffPolicyBuilder builder = BackoffPolicy.builder();
		assertThatNullPointerException().isThrownBy(() -> builder.type(null)).withMessage("type");
		assertThatNullPointerException().isThrownBy(() -> builder.delay(null)).withMessage("delay");
		assertThatNullPointerException().isThrownBy(() -> builder.maxDelay(null)).withMessage("maxDelay");
		assertThatNullPointerException().isThrownBy(() -> builder.random(null)).withMessage("random");
		assertThatNullPointerException().isThrownBy(() -> BackoffPolicy.builder(null)).withMessage("base");
		assertThatNullPointerException().isThrownBy(() -> BackoffPolicy.fixed(null)).withMessage("delay");
	}

	@Test
	void builderFromBaseCopiesEveryField() {
		DoubleSupplier random = () -> 0.25;
		BackoffPolicy base = BackoffPolicy.builder()
			.type(BackoffType.FULL_JITTER)
			.delay(Duration.ofMillis(250))
			.multiplier(3.0)
			.maxDelay(Duration.ofSeconds(30))
			.jitter(0.2)
			.random(random)
			.build();
		BackoffPolicy copy = BackoffPolicy.builder(base).build();
		assertThat(copy).isEqualTo(base).isNotSameAs(base);
		assertThat(copy.getType()).isEqualTo(BackoffType.FULL_JITTER);
		assertThat(copy.getDelay()).isEqualTo(Duration.ofMillis(250));
		assertThat(copy.getMultiplier()).isEqualTo(3.0);
		assertThat(copy.getMaxDelay()).isEqualTo(Duration.ofSeconds(30));
		assertThat(copy.getJitter()).isEqualTo(0.2);
		assertThat(copy.random()).isSameAs(random);
	}

	@Test
	void builderFromBaseChangesOnlyWhatIsSet() {
		BackoffPolicy base = BackoffPolicy.builder()
			.type(BackoffType.FIBONACCI)
			.delay(Duration.ofMillis(500))
			.jitter(0.3)
			.build();
		BackoffPolicy child = BackoffPolicy.builder(base).maxDelay(Duration.ofMinutes(1)).build();
		assertThat(child.getType()).isEqualTo(BackoffType.FIBONACCI);
		assertThat(child.getDelay()).isEqualTo(Duration.ofMillis(500));
		assertThat(child.getMultiplier()).isEqualTo(2.0);
		assertThat(child.getJitter()).isEqualTo(0.3);
		assertThat(child.getMaxDelay()).isEqualTo(Duration.ofMinutes(1));
		assertThat(base.getMaxDelay()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void builtPolicyDoesNotChangeWhenTheBuilderDoes() {
		BackoffPolicyBuilder builder = BackoffPolicy.builder().delay(Duration.ofMillis(200));
		BackoffPolicy first = builder.build();
		builder.type(BackoffType.LINEAR).delay(Duration.ofSeconds(1)).jitter(1.0);
		assertThat(first).isEqualTo(BackoffPolicy.builder().delay(Duration.ofMillis(200)).build());
		assertThat(first.getType()).isEqualTo(BackoffType.EXPONENTIAL);
	}

	@Test
	void noneNeverWaits() {
		assertThat(BackoffPolicy.none().getType()).isEqualTo(BackoffType.NONE);
		assertThat(BackoffPolicy.none().nextDelayNanos(3, 0)).isZero();
	}

	@Test
	void fixedKeepsTheDefaultMaxDelayUnlessTheDelayIsLonger() {
		BackoffPolicy shortDelay = BackoffPolicy.fixed(Duration.ofMillis(300));
		assertThat(shortDelay.getType()).isEqualTo(BackoffType.FIXED);
		assertThat(shortDelay.getDelay()).isEqualTo(Duration.ofMillis(300));
		assertThat(shortDelay.getMaxDelay()).isEqualTo(Duration.ofSeconds(10));
		assertThat(BackoffPolicy.fixed(Duration.ofSeconds(30)).getMaxDelay()).isEqualTo(Duration.ofSeconds(30));
		assertThat(BackoffPolicy.fixed(Duration.ofSeconds(30)).nextDelayNanos(5, 0)).isEqualTo(30_000_000_000L);
	}

	@Test
	void exponentialFactoryValidatesLikeTheBuilder() {
		BackoffPolicy policy = BackoffPolicy.exponential(Duration.ofMillis(50), 1.5, Duration.ofSeconds(2));
		assertThat(policy).hasToString("exponential(delay=50ms, multiplier=1.5, maxDelay=2s, jitter=0.0)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BackoffPolicy.exponential(Duration.ofSeconds(1), 0.9, Duration.ofSeconds(2)))
			.withMessage("Invalid multiplier (0.9): must be 1.0 or greater for backoff type 'exponential'");
	}

	@Test
	void toStringShowsTheEffectiveConfig() {
		assertThat(BackoffPolicy.builder().jitter(0.5).build())
			.hasToString("exponential(delay=100ms, multiplier=2.0, maxDelay=10s, jitter=0.5)");
		assertThat(BackoffPolicy.builder().type(BackoffType.DECORRELATED_JITTER).delay(Duration.ofSeconds(2))
			.maxDelay(Duration.ofSeconds(90))
			.build())
			.hasToString("decorrelated-jitter(delay=2s, multiplier=2.0, maxDelay=1m30s, jitter=0.0)");
	}

	@Test
	void equalityIgnoresTheRandomSource() {
		BackoffPolicy a = BackoffPolicy.builder().jitter(0.5).random(() -> 0.1).build();
		BackoffPolicy b = BackoffPolicy.builder().jitter(0.5).random(() -> 0.9).build();
		assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
	}

	@Test
	void equalityComparesEverySetting() {
		BackoffPolicy base = BackoffPolicy.defaults();
		assertThat(BackoffPolicy.builder().type(BackoffType.LINEAR).build()).isNotEqualTo(base);
		assertThat(BackoffPolicy.builder().delay(Duration.ofMillis(101)).build()).isNotEqualTo(base);
		assertThat(BackoffPolicy.builder().multiplier(2.5).build()).isNotEqualTo(base);
		assertThat(BackoffPolicy.builder().maxDelay(Duration.ofSeconds(11)).build()).isNotEqualTo(base);
		assertThat(BackoffPolicy.builder().jitter(0.1).build()).isNotEqualTo(base);
		assertThat(BackoffPolicy.builder().jitter(-0.0).build()).isEqualTo(base).hasSameHashCodeAs(base);
	}

}
