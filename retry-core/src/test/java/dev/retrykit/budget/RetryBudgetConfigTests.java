package dev.retrykit.budget;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class RetryBudgetConfigTests {

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

	@Test
	void settingARatioChoosesARatioBudgetWithFinaglesDefaults() {
		RetryBudgetConfig config = RetryBudgetConfig.builder().ratio(0.2).build();
		assertThat(config.getKind()).isEqualTo(RetryBudgetConfig.Kind.RATIO);
		assertThat(config.getRatio()).isEqualTo(0.2);
		assertThat(config.getMinPerSecond()).isEqualTo(10);
		assertThat(config.getWindow()).isEqualTo(Duration.ofSeconds(10));
		assertThat(config).hasToString("RetryBudgetConfig{ratio=0.2, minPerSecond=10, window=10s}")
			.isEqualTo(RetryBudgetConfig.builder().window(Duration.ofSeconds(10)).ratio(0.2).build())
			.isNotEqualTo(RetryBudgetConfig.builder().ratio(0.2).minPerSecond(5).build())
			.isNotEqualTo(RetryBudgetConfig.ofDefaults());
		assertThat(RetryBudgetConfig.ofDefaults().getKind()).isEqualTo(RetryBudgetConfig.Kind.TOKEN_BUCKET);
		assertThat(RetryBudgetConfig.builder(config).build()).isEqualTo(config).hasSameHashCodeAs(config);
	}

	@Test
	void aRatioBudgetsSettingsAreCheckedNamingTheValueAndTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().ratio(0))
				.withMessage("Invalid ratio (0.0): must be greater than 0 and at most 10");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().ratio(10.5))
				.withMessage("Invalid ratio (10.5): must be greater than 0 and at most 10");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().ratio(Double.NaN))
				.withMessage("Invalid ratio (NaN): must be greater than 0 and at most 10");
		assertThat(RetryBudgetConfig.builder().ratio(10).build().getRatio()).isEqualTo(10.0);
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().minPerSecond(-1))
				.withMessage("Invalid minPerSecond (-1): must be 0 or greater");
		assertThat(RetryBudgetConfig.builder().ratio(1).minPerSecond(0).build().getMinPerSecond()).isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().window(Duration.ofMillis(999)))
				.withMessage("Invalid window (999ms): must be between 1s and 60s");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().window(Duration.ofSeconds(61)))
				.withMessage("Invalid window (1m1s): must be between 1s and 60s");
		assertThat(RetryBudgetConfig.builder().ratio(1).window(Duration.ofSeconds(60)).build().getWindow())
				.isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void aRatioTogetherWithATokenBucketsSettingIsRefusedNamingBoth() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().ratio(0.2).maxTokens(20).build())
				.withMessage("Invalid budget: ratio (0.2) and maxTokens (20) are both set: ratio chooses a ratio budget, "
						+ "maxTokens and tokenRatio are a token bucket's; set one kind's settings");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().tokenRatio(0.5).ratio(0.2).build())
				.withMessageContaining("ratio (0.2) and tokenRatio (0.5) are both set");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().minPerSecond(3).build())
				.withMessage("Invalid budget: minPerSecond (3) is a ratio budget's setting, and this budget is a token "
						+ "bucket; set ratio to choose a ratio budget");
	}

	@Test
	void aBuilderFromABaseOfOneKindSwitchesKindWhenTheOtherKindsSettingIsGiven() {
		RetryBudgetConfig ratio = RetryBudgetConfig.builder().ratio(0.3).window(Duration.ofSeconds(5)).build();
		assertThat(RetryBudgetConfig.builder(ratio).maxTokens(20).build())
				.isEqualTo(RetryBudgetConfig.builder().maxTokens(20).build());
		assertThat(RetryBudgetConfig.builder(ratio).minPerSecond(1).build().getWindow()).isEqualTo(Duration.ofSeconds(5));
		assertThat(RetryBudgetConfig.builder(RetryBudgetConfig.ofDefaults()).ratio(0.1).build().getKind())
				.isEqualTo(RetryBudgetConfig.Kind.RATIO);
	}

}
