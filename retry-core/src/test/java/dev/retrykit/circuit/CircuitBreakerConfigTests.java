package dev.retrykit.circuit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class CircuitBreakerConfigTests {

	@Test
	void defaultsAreDapr() {
		CircuitBreakerConfig config = CircuitBreakerConfig.ofDefaults();
		assertThat(config.getTrip()).isEqualTo("consecutiveFailures > 5");
		assertThat(config.getTripExpression()).isEqualTo(TripExpression.parse("consecutiveFailures > 5"));
		assertThat(config.getInterval()).isZero();
		assertThat(config.getTimeout()).isEqualTo(Duration.ofSeconds(60));
		assertThat(config.getMaxRequests()).isEqualTo(1);
		assertThat(CircuitBreakerConfig.builder().build()).isEqualTo(config);
	}

	@Test
	void toStringShowsTheEffectiveConfigWithReadableDurations() {
		assertThat(CircuitBreakerConfig.ofDefaults()).hasToString(
				"CircuitBreakerConfig{trip='consecutiveFailures > 5', interval=0s, timeout=1m, maxRequests=1}");
		CircuitBreakerConfig config = CircuitBreakerConfig.builder().trip("failureRate > 50")
				.interval(Duration.ofMinutes(5)).timeout(Duration.ofMillis(1500)).maxRequests(3).build();
		assertThat(config).hasToString(
				"CircuitBreakerConfig{trip='failureRate > 50', interval=5m, timeout=1s500ms, maxRequests=3}");
	}

	@Test
	void builderFromBaseCopiesEveryValueAndLeavesTheBaseUnchanged() {
		CircuitBreakerConfig base = CircuitBreakerConfig.builder().trip("totalFailures > 3")
				.interval(Duration.ofSeconds(10)).timeout(Duration.ofSeconds(5)).maxRequests(2).build();
		assertThat(CircuitBreakerConfig.builder(base).build()).isEqualTo(base).hasSameHashCodeAs(base);
		CircuitBreakerConfig derived = CircuitBreakerConfig.builder(base).maxRequests(4).build();
		assertThat(derived.getMaxRequests()).isEqualTo(4);
		assertThat(derived.getTrip()).isEqualTo("totalFailures > 3");
		assertThat(derived.getInterval()).isEqualTo(Duration.ofSeconds(10));
		assertThat(derived.getTimeout()).isEqualTo(Duration.ofSeconds(5));
		assertThat(derived).isNotEqualTo(base);
		assertThat(base.getMaxRequests()).isEqualTo(2);
	}

	@Test
	void aBuiltConfigDoesNotChangeWithItsBuilder() {
		CircuitBreakerConfigBuilder builder = CircuitBreakerConfig.builder().maxRequests(2);
		CircuitBreakerConfig config = builder.build();
		builder.maxRequests(5).trip("requests > 1");
		assertThat(config.getMaxRequests()).isEqualTo(2);
		assertThat(config.getTrip()).isEqualTo("consecutiveFailures > 5");
	}

	@Test
	void equalityCoversEveryField() {
		CircuitBreakerConfig config = CircuitBreakerConfig.ofDefaults();
		assertThat(config).isNotEqualTo(CircuitBreakerConfig.builder().trip("consecutiveFailures > 6").build())
				.isNotEqualTo(CircuitBreakerConfig.builder().interval(Duration.ofSeconds(1)).build())
				.isNotEqualTo(CircuitBreakerConfig.builder().timeout(Duration.ofSeconds(1)).build())
				.isNotEqualTo(CircuitBreakerConfig.builder().maxRequests(2).build())
				.isNotEqualTo(null)
				.isNotEqualTo("CircuitBreakerConfig");
	}

	@Test
	void rejectsMaxRequestsBelowOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreakerConfig.builder().maxRequests(0))
				.withMessage("Invalid maxRequests (0): must be 1 or greater");
	}

	@Test
	void rejectsTimeoutsThatAreNotPositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreakerConfig.builder().timeout(Duration.ZERO))
				.withMessage("Invalid timeout (0s): must be greater than 0");
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreakerConfig.builder().timeout(Duration.ofMillis(-250)))
				.withMessage("Invalid timeout (-250ms): must be greater than 0");
	}

	@Test
	void rejectsNegativeIntervals() {
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreakerConfig.builder().interval(Duration.ofSeconds(-1)))
				.withMessage("Invalid interval (-1s): must be 0 (never clear the counts) or greater");
	}

	@Test
	void rejectsDurationsTooLongForNanoseconds() {
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreakerConfig.builder().timeout(Duration.ofDays(200_000)))
				.withMessage("Invalid timeout (PT4800000H): must be at most 292 years (it is counted in nanoseconds)");
	}

	@Test
	void rejectsNulls() {
		assertThatNullPointerException().isThrownBy(() -> CircuitBreakerConfig.builder().trip(null)).withMessage("trip must not be null");
		assertThatNullPointerException().isThrownBy(() -> CircuitBreakerConfig.builder().interval(null)).withMessage("interval must not be null");
		assertThatNullPointerException().isThrownBy(() -> CircuitBreakerConfig.builder().timeout(null)).withMessage("timeout must not be null");
		assertThatNullPointerException().isThrownBy(() -> CircuitBreakerConfig.builder(null)).withMessage("base must not be null");
	}

	@Test
	void parsesTheTripExpressionWhenBuilding() {
		CircuitBreakerConfigBuilder builder = CircuitBreakerConfig.builder().trip("consecutiveFailures >> 5");
		assertThatIllegalArgumentException().isThrownBy(builder::build)
				.withMessageStartingWith("Invalid trip expression 'consecutiveFailures >> 5' at position 21: expected a number or a variable");
	}

}
