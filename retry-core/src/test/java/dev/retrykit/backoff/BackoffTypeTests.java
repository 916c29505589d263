package dev.retrykit.backoff;

import java.util.Arrays;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Property ids and their lookup.
 */
class BackoffTypeTests {

	private static final String ALL_IDS = "none, fixed, linear, exponential, exponential-random, uniform-random, "
			+ "fibonacci, full-jitter, equal-jitter, decorrelated-jitter";

	@Test
	void everyTypeHasItsPropertyId() {
		assertThat(Arrays.stream(BackoffType.values()).map(BackoffType::getId))
			.containsExactly(ALL_IDS.split(", "));
	}

	@ParameterizedTest
	@EnumSource(BackoffType.class)
	void fromIdFindsEveryIdInAnyCase(BackoffType type) {
		String id = type.getId();
		assertThat(BackoffType.fromId(id)).isSameAs(type);
		assertThat(BackoffType.fromId(id.toUpperCase(Locale.ROOT))).isSameAs(type);
		assertThat(BackoffType.fromId(Character.toUpperCase(id.charAt(0)) + id.substring(1))).isSameAs(type);
	}

	@ParameterizedTest
	@EnumSource(BackoffType.class)
	void fromIdFindsEveryEnumNameInAnyCase(BackoffType type) {
		assertThat(BackoffType.fromId(type.name())).isSameAs(type);
		assertThat(BackoffType.fromId(type.name().toLowerCase(Locale.ROOT))).isSameAs(type);
	}

	@Test
	void fromIdWithUnknownValueNamesItAndListsEveryId() {
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffType.fromId("exponentail"))
			.withMessage("Invalid backoff type (exponentail): must be one of " + ALL_IDS);
		assertThatIllegalArgumentException().isThrownBy(() -> BackoffType.fromId(""))
			.withMessage("Invalid backoff type (): must be one of " + ALL_IDS);
	}

	@Test
	void fromIdRejectsNull() {
		assertThatNullPointerException().isThrownBy(() -> BackoffType.fromId(null)).withMessage("id");
	}

	@Test
	void exponentialTypesAreTheOnesThatUseTheMultiplier() {
		assertThat(Arrays.stream(BackoffType.values()).filter(BackoffType::isExponential)).containsExactly(
				BackoffType.EXPONENTIAL, BackoffType.EXPONENTIAL_RANDOM, BackoffType.FULL_JITTER,
				BackoffType.EQUAL_JITTER);
	}

}
