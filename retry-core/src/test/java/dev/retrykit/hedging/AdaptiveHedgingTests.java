package dev.retrykit.hedging;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The adaptive delay in virtual time: max-delay until enough samples, then the quantile, following changes. */
class AdaptiveHedgingTests {

	private final VirtualTime time = new VirtualTime();

	private final SplittableRandom random = new SplittableRandom(29);

	private final RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time)
		.config(RetryConfig.builder().maxAttempts(2).hedging(HedgingConfig.builder().quantile(0.9)
			.minDelay(Duration.ofMillis(2)).maxDelay(Duration.ofMillis(500)).build()).build())
		.build();

	/** Runs calls one after another, each answered by its first copy after a latency uniform in [low, high) ms. */
	private void calls(int count, int lowMillis, int highMillis) {
		for (int i = 0; i < count; i++) {
			CompletableFuture<String> first = new CompletableFuture<>();
			CompletableFuture<String> call = this.template.executeAsync(() -> first);
			this.time.advance(Duration.ofMillis(this.random.nextInt(lowMillis, highMillis)));
			first.complete("ok");
			assertThat(call).isCompletedWithValue("ok");
		}
	}

	@Test
	void theDelayIsTheMaxDelayUntilEnoughSamplesThenFollowsTheLatencyQuantile() {
		assertThat(this.template.getHedgingDelay()).isEqualTo(Duration.ofMillis(500));
		calls(99, 10, 20);
		assertThat(this.template.getHedgingDelay()).isEqualTo(Duration.ofMillis(500));
		calls(1, 10, 20);
		assertThat(this.template.getHedgingDelay()).isBetween(Duration.ofMillis(17), Duration.ofMillis(19));

		// Slower: 100-200ms. Within a window the delay follows; hedges fire meanwhile and lose.
		calls(1024, 100, 200);
		assertThat(this.template.getHedgingDelay()).isBetween(Duration.ofMillis(185), Duration.ofMillis(195));

		// Faster again, below min-delay: clamped.
		calls(1024, 0, 1);
		assertThat(this.template.getHedgingDelay()).isEqualTo(Duration.ofMillis(2));

		// Very slow: clamped to max-delay.
		calls(1024, 600, 700);
		assertThat(this.template.getHedgingDelay()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void aFixedDelayIsTheDelay() {
		RetryTemplate fixed = RetryTemplate.builder().virtualTime(this.time)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(7)).build()).build();

		assertThat(fixed.getHedgingDelay()).isEqualTo(Duration.ofMillis(7));
		assertThat(RetryTemplate.builder().build().getHedgingDelay()).isNull();
	}

}
