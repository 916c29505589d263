package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.context.RetryContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code executeAsync(Function<RetryContext, …>)} hands each attempt, and each hedged copy, its own context, as
 * Failsafe's {@code getStageAsync(ContextualSupplier)} does.
 */
class ContextualAsyncAttemptsTests {

	private final VirtualTime time = new VirtualTime();

	@Test
	void eachAttemptIsHandedTheCallsContext() {
		RetryTemplate template = RetryTemplate.builder().name("inventory").virtualTime(this.time).maxAttempts(3)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(10))).build();
		List<Integer> retryCounts = new ArrayList<>();
		List<Boolean> current = new ArrayList<>();
		CompletableFuture<String> call = template.executeAsync((RetryContext context) -> {
			retryCounts.add(context.getRetryCount());
			current.add(context == RetryTemplate.currentContext());
			return (context.getRetryCount() < 2) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("ok after " + (context.getRetryCount() + 1));
		});
		this.time.advance(Duration.ofMillis(100));
		assertThat(call).isCompletedWithValue("ok after 3");
		assertThat(retryCounts).containsExactly(0, 1, 2);
		assertThat(current).containsOnly(true);
	}

	@Test
	void theRecoveryOverloadRecoversFromTheLastFailure() {
		RetryTemplate template = RetryTemplate.builder().name("inventory").virtualTime(this.time).maxAttempts(2)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(10))).build();
		CompletableFuture<String> call = template.executeAsync(
				(RetryContext context) -> CompletableFuture.<String>failedFuture(new IOException("down " + context.getRetryCount())),
				failure -> CompletableFuture.completedFuture("cached after " + failure.getMessage()));
		this.time.advance(Duration.ofMillis(100));
		assertThat(call).isCompletedWithValue("cached after down 1");
	}

	@Test
	void eachHedgedCopyIsHandedAContextOfItsOwn() {
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(3)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).build()).build())
			.build();
		List<RetryContext> contexts = new ArrayList<>();
		List<CompletableFuture<String>> copies = new ArrayList<>();
		CompletableFuture<String> call = template.executeAsync((RetryContext context) -> {
			contexts.add(context);
			CompletableFuture<String> copy = new CompletableFuture<>();
			copies.add(copy);
			return copy;
		});
		this.time.advance(Duration.ofMillis(20));
		assertThat(contexts).hasSize(3);
		assertThat(contexts).extracting(RetryContext::getRetryCount).containsExactly(0, 1, 2);
		assertThat(contexts).extracting(context -> context.getAttribute("retry.hedged")).containsExactly(null, true, true);
		copies.get(1).complete("copy 2");
		assertThat(call).isCompletedWithValue("copy 2");
	}

}
