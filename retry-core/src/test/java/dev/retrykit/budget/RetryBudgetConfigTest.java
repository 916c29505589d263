package dev.retrykit.budget;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class RetryBudgetConfigTest {

	@Test
	void defaultsAreGrpcs() {
		RetryBudgetConfig config = RetryBudgetConfig.ofDefaults();
		assertThat(config.getMaxTokens()).isEqualTo(10);
		assertThat(config.getTokenRatio()).isEqualTo(0.1);
		assertThat(config).hasToString("RetryBudgetConfig{maxTokens=10, tokenRatio=0.1}");
		assertThat(RetryBudgetConfig.builder().build()).isEqualTo(config).hasSameHashCodeAs(config);
	}

	@Test
	void builderFromBaseCopiesEveryValue() {
		RetryBudgetConfig base = RetryBudgetConfig.builder().maxTokens(100).tokenRatio(0.25).build();
		assertThat(RetryBudgetConfig.builder(base).build()).isEqualTo(base);
		RetryBudgetConfig derived = RetryBudgetConfig.builder(base).maxTokens(50).build();
		assertThat(derived.getTokenRatio()).isEqualTo(0.25);
		assertThat(derived).isNotEqualTo(base).isNotEqualTo(RetryBudgetConfig.builder(base).tokenRatio(0.5).build());
		assertThatNullPointerException().isThrownBy(() -> RetryBudgetConfig.builder(null)).withMessage("base must not be null");
	}

	@Test
	void tokenRatioKeepsThreeDecimalPlaces() {
		assertThat(RetryBudgetConfig.builder().tokenRatio(0.0125).build().getTokenRatio()).isEqualTo(0.013);
		assertThat(RetryBudgetConfig.builder().tokenRatio(0.12344).build().getTokenRatio()).isEqualTo(0.123);
		assertThat(RetryBudgetConfig.builder().tokenRatio(0.0005).build().getTokenRatio()).isEqualTo(0.001);
		assertThat(RetryBudgetConfig.builder().tokenRatio(1000).build().getTokenRatio()).isEqualTo(1000.0);
		assertThat(RetryBudgetConfig.builder().tokenRatio(0.1004).build())
				.isEqualTo(RetryBudgetConfig.builder().tokenRatio(0.1).build());
	}

	@Test
	void rejectsMaxTokensOutsideOneToAThousand() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().maxTokens(0))
				.withMessage("Invalid maxTokens (0): must be between 1 and 1000");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().maxTokens(1001))
				.withMessage("Invalid maxTokens (1001): must be between 1 and 1000");
		assertThat(RetryBudgetConfig.builder().maxTokens(1).build().getMaxTokens()).isEqualTo(1);
		assertThat(RetryBudgetConfig.builder().maxTokens(1000).build().getMaxTokens()).isEqualTo(1000);
	}

	@Test
	void rejectsTokenRatiosThatRoundToZeroOrAreTooLarge() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().tokenRatio(0))
				.withMessage("Invalid tokenRatio (0.0): must be 0.001 or greater (the budget keeps 3 decimal places)");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().tokenRatio(0.0004))
				.withMessage("Invalid tokenRatio (4.0E-4): must be 0.001 or greater (the budget keeps 3 decimal places)");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().tokenRatio(-1))
				.withMessage("Invalid tokenRatio (-1.0): must be 0.001 or greater (the budget keeps 3 decimal places)");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().tokenRatio(1000.1))
				.withMessage("Invalid tokenRatio (1000.1): must be greater than 0 and at most 1000");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().tokenRatio(Double.NaN))
				.withMessage("Invalid tokenRatio (NaN): must be greater than 0 and at most 1000");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().tokenRatio(Double.POSITIVE_INFINITY))
				.withMessage("Invalid tokenRatio (Infinity): must be greater than 0 and at most 1000");
	}

}
