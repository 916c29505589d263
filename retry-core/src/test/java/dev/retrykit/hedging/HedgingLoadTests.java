package dev.retrykit.hedging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The load hedging adds, in virtual time: {@code max-extra-load} bounds the copies after the first, the
 * adaptive delay forgets old latencies, the retry budget lets hedges through only while it allows a
 * retry, and the rules that span settings fail the build.
 */
class HedgingLoadTests {

	private final VirtualTime time = new VirtualTime();

	private CompletionStage<String> answerIn(long millis) {
		CompletableFuture<String> answer = new CompletableFuture<>();
		this.time.schedule(() -> answer.complete("ok"), millis, TimeUnit.MILLISECONDS);
		return answer;
	}

	@Test
	void copiesAfterTheFirstStayWithinMaxExtraLoadOfTheCallsPlusTheReserve() {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(1)).build()).build();
		List<CompletableFuture<String>> calls = new ArrayList<>();

		// Every call is slower than the delay: without a bound each would send two more copies.
		for (int i = 0; i < 2000; i++) {
			calls.add(template.executeAsync(() -> answerIn(5)));
			this.time.advance(Duration.ofMillis(5));
		}
		this.time.advance(Duration.ofSeconds(1));

		assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValue("ok"));
		long extra = template.getMetrics().getHedgesStarted();
		assertThat(extra).isPositive().isLessThanOrEqualTo((long) (0.1 * 2000) + 10);
		assertThat(template.getMetrics().getHedgesRefused()).isPositive();
	}

	@Test
	void theAdaptiveDelayForgetsLatenciesOlderThanItsWindow() {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(2)
			.hedging(HedgingConfig.builder().adaptive().maxDelay(Duration.ofSeconds(1)).build()).build();
		for (int i = 0; i < 200; i++) {
			template.executeAsync(() -> answerIn(40));
			this.time.advance(Duration.ofMillis(40));
		}
		assertThat(template.getHedgingDelay()).isEqualTo(Duration.ofMillis(40));

		this.time.advance(Duration.ofSeconds(20));
		for (int i = 0; i < 130; i++) {
			template.executeAsync(() -> answerIn(5));
			this.time.advance(Duration.ofMillis(5));
		}

		assertThat(template.getHedgingDelay()).isEqualTo(Duration.ofMillis(5));
	}

	@Test
	void aHedgeIsSentOnlyWhileTheBudgetAllowsARetry() {
		RetryBudget budget = RetryBudget.create("search", RetryBudgetConfig.builder().maxTokens(2).build());
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).budget(budget).build();
		budget.onFailure();
		Downstream downstream = new Downstream();

		CompletableFuture<String> call = template.executeAsync(downstream);
		this.time.advance(Duration.ofMillis(100));

		assertThat(downstream.calls()).isEqualTo(1);
		assertThat(template.getMetrics().getHedgesRefused()).isEqualTo(1);
		downstream.copy(1).complete("first");
		assertThat(call).isCompletedWithValue("first");
		assertThat(budget.getTokens()).isGreaterThan(1.0);
	}

	@Test
	void aZeroDelayNeedsRoomForEveryCopyInMaxExtraLoad() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryConfig.builder().maxAttempts(3)
				.hedging(HedgingConfig.builder().delay(Duration.ZERO).build()).build())
			.withMessageContaining("maxExtraLoad (0.1)").withMessageContaining("maxAttempts 3");
		assertThat(RetryConfig.builder().maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ZERO).maxExtraLoad(2).build()).build().isHedging()).isTrue();
	}

	@Test
	void aHedgedCallSendsAtMostTenCopies() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryConfig.builder().maxAttempts(11)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build())
			.withMessageStartingWith("Invalid maxAttempts (11) with hedging: must be from 1 to 10");
		assertThat(RetryConfig.builder().maxAttempts(11)
			.hedging(HedgingConfig.builder().enabled(false).build()).build().getMaxAttempts()).isEqualTo(11);
	}

	@Test
	void maxExtraLoadIsCheckedAndShown() {
		assertThatIllegalArgumentException().isThrownBy(() -> HedgingConfig.builder().maxExtraLoad(-0.1))
			.withMessageStartingWith("Invalid maxExtraLoad (-0.1): must be from 0 to 9");
		HedgingConfig config = HedgingConfig.builder().delay(Duration.ofMillis(10)).maxExtraLoad(0.25)
			.interruptLosers(true).build();
		assertThat(config.getMaxExtraLoad()).isEqualTo(0.25);
		assertThat(config.isInterruptLosers()).isTrue();
		assertThat(HedgingConfig.builder(config).build()).isEqualTo(config);
		assertThat(config).hasToString("HedgingConfig{delay=10ms, maxExtraLoad=0.25, interruptLosers=true}");
		assertThat(HedgingConfig.builder().build().isInterruptLosers()).isFalse();
	}

}
