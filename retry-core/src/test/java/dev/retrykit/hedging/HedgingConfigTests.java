package dev.retrykit.hedging;

import java.time.Duration;

import dev.retrykit.RetryConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class HedgingConfigTests {

	@Test
	void defaultsAreAnAdaptiveDelayAtTheNinetyFifthPercentileWithinOneMillisecondAndOneSecond() {
		HedgingConfig config = HedgingConfig.builder().build();

		assertThat(config.isEnabled()).isTrue();
		assertThat(config.isAdaptive()).isTrue();
		assertThat(config.getDelay()).isNull();
		assertThat(config.getQuantile()).isEqualTo(0.95);
		assertThat(config.getMinDelay()).isEqualTo(Duration.ofMillis(1));
		assertThat(config.getMaxDelay()).isEqualTo(Duration.ofSeconds(1));
		assertThat(config).hasToString("HedgingConfig{delay=adaptive, quantile=0.95, minDelay=1ms, maxDelay=1s, maxExtraLoad=0.1}");
	}

	@Test
	void aFixedDelayShowsAloneAndDisabledShows() {
		assertThat(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).hasToString("HedgingConfig{delay=10ms, maxExtraLoad=0.1}");
		assertThat(HedgingConfig.builder().enabled(false).delay(Duration.ZERO).build())
			.hasToString("HedgingConfig{enabled=false, delay=0s, maxExtraLoad=0.1}");
	}

	@Test
	void invalidValuesAreRefusedWithTheValueAndTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().quantile(1.0))
			.withMessage("Invalid quantile (1.0): must be greater than 0 and less than 1");
		assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().quantile(0))
			.withMessage("Invalid quantile (0.0): must be greater than 0 and less than 1");
		assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().quantile(Double.NaN))
			.withMessageStartingWith("Invalid quantile (NaN)");
		assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().delay(Duration.ofMillis(-1)))
			.withMessage("Invalid delay (-1ms): must be zero or greater (zero sends every copy at once), or adaptive");
		assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().minDelay(Duration.ofMillis(-1)))
			.withMessage("Invalid minDelay (-1ms): must be zero or greater");
		assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().maxDelay(Duration.ZERO))
			.withMessage("Invalid maxDelay (0s): must be greater than zero");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> HedgingConfig.builder().minDelay(Duration.ofSeconds(2)).maxDelay(Duration.ofSeconds(1)).build())
			.withMessage("Invalid minDelay (2s): must not be greater than maxDelay (1s)");
	}

	@Test
	void unlimitedAttemptsCannotHedge() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryConfig.builder().maxAttempts(-1).hedging(HedgingConfig.builder().build()).build())
			.withMessage("Invalid maxAttempts (-1) with hedging: must be from 1 to 10, the copies of a hedged call in all");
		assertThat(RetryConfig.builder().maxAttempts(-1).hedging(HedgingConfig.builder().enabled(false).build()).build()
			.isHedging()).isFalse();
	}

	@Test
	void configsWithTheSameValuesAreEqualAndABuilderStartsFromABase() {
		HedgingConfig config = HedgingConfig.builder().quantile(0.98).minDelay(Duration.ofMillis(2))
			.maxDelay(Duration.ofMillis(500)).build();

		assertThat(HedgingConfig.builder(config).build()).isEqualTo(config).hasSameHashCodeAs(config);
		assertThat(HedgingConfig.builder(config).delay(Duration.ofMillis(10)).build()).isNotEqualTo(config);
		HedgingConfig fixed = HedgingConfig.builder().delay(Duration.ofMillis(10)).build();
		assertThat(HedgingConfig.builder(fixed).build()).isEqualTo(fixed);
	}

	@Test
	void theRetryConfigCarriesAndShowsItsHedging() {
		HedgingConfig hedging = HedgingConfig.builder().delay(Duration.ofMillis(10)).build();
		RetryConfig config = RetryConfig.builder().hedging(hedging).build();

		assertThat(config.getHedging()).isSameAs(hedging);
		assertThat(config.isHedging()).isTrue();
		assertThat(RetryConfig.builder(config).build().getHedging()).isSameAs(hedging);
		assertThat(config.toString()).endsWith(", hedging=HedgingConfig{delay=10ms, maxExtraLoad=0.1}]");
		assertThat(RetryConfig.defaults().isHedging()).isFalse();
	}

	@Test
	void theExecutorOfBlockingCallsIsPartOfTheConfigAndShownByClassAndIdentity() {
		java.util.concurrent.Executor executor = Runnable::run;
		HedgingConfig config = HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(executor).build();

		assertThat(config.getExecutor()).isSameAs(executor);
		assertThat(HedgingConfig.builder().build().getExecutor()).isNull();
		assertThat(HedgingConfig.builder(config).build()).isEqualTo(config).hasSameHashCodeAs(config);
		assertThat(HedgingConfig.builder(config).executor(Runnable::run).build()).isNotEqualTo(config);
		assertThat(HedgingConfig.builder(config).executor(null).build())
			.isEqualTo(HedgingConfig.builder().delay(Duration.ofMillis(10)).build());
		assertThat(config.toString()).isEqualTo("HedgingConfig{delay=10ms, maxExtraLoad=0.1, executor=" + executor.getClass().getName() + "@"
				+ Integer.toHexString(System.identityHashCode(executor)) + "}");
	}

}
