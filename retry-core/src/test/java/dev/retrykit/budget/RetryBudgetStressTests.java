package dev.retrykit.budget;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/** Many threads against one budget: no update is lost and the tokens stay within their bounds. */
@Timeout(30)
class RetryBudgetStressTests {

	private static final int THREADS = 8;

	@Test
	void tokensStayBetweenZeroAndMaxUnderMixedTraffic() throws Exception {
		RetryBudget budget = RetryBudget.create("shared", RetryBudgetConfig.builder().maxTokens(10).tokenRatio(0.7).build());
		AtomicInteger outOfBounds = new AtomicInteger();
		Concurrently.run(THREADS, index -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			for (int i = 0; i < 200_000; i++) {
				if (random.nextBoolean()) {
					budget.onFailure();
				}
				else {
					budget.onSuccess();
				}
				budget.tryAcquireRetry();
				double tokens = budget.getTokens();
				if (tokens < 0 || tokens > 10) {
					outOfBounds.incrementAndGet();
				}
			}
		});
		assertThat(outOfBounds).hasValue(0);
		assertThat(budget.getTokens()).isBetween(0.0, 10.0);
	}

	@Test
	void concurrentUpdatesAreNeverLost() throws Exception {
		RetryBudget budget = RetryBudget.create("shared", RetryBudgetConfig.builder().maxTokens(1000).tokenRatio(0.1).build());
		Concurrently.run(THREADS, index -> {
			for (int i = 0; i < 100; i++) {
				budget.onFailure();
			}
		});
		assertThat(budget.getTokens()).isEqualTo(200.0);
		Concurrently.run(THREADS, index -> {
			for (int i = 0; i < 1000; i++) {
				budget.onSuccess();
			}
		});
		assertThat(budget.getTokens()).isEqualTo(1000.0);
		Concurrently.run(THREADS, index -> {
			for (int i = 0; i < 500; i++) {
				budget.onFailure();
			}
		});
		assertThat(budget.getTokens()).as("drained, never below zero").isZero();
		Concurrently.run(THREADS, index -> {
			for (int i = 0; i < 1000; i++) {
				budget.onSuccess();
			}
		});
		assertThat(budget.getTokens()).as("8 x 1000 x 0.1, exact").isEqualTo(800.0);
	}

}
