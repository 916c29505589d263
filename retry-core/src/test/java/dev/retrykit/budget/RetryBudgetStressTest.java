package dev.retrykit.budget;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/** Many threads against one budget: no update is lost and the tokens stay within their bounds. */
@Timeout(30)
class RetryBudgetStressTest {

	private static final int THREADS = 8;

	private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

	@AfterEach
	void shutDown() throws InterruptedException {
		this.pool.shutdownNow();
		assertThat(this.pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	private void runConcurrently(Runnable task) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			futures.add(this.pool.submit(() -> {
				start.await();
				task.run();
				return null;
			}));
		}
		start.countDown();
		for (Future<?> future : futures) {
			future.get(20, TimeUnit.SECONDS);
		}
	}

	@Test
	void tokensStayBetweenZeroAndMaxUnderMixedTraffic() throws Exception {
		RetryBudget budget = RetryBudget.create("shared", RetryBudgetConfig.builder().maxTokens(10).tokenRatio(0.7).build());
		AtomicInteger outOfBounds = new AtomicInteger();
		runConcurrently(() -> {
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
		runConcurrently(() -> {
			for (int i = 0; i < 100; i++) {
				budget.onFailure();
			}
		});
		assertThat(budget.getTokens()).isEqualTo(200.0);
		runConcurrently(() -> {
			for (int i = 0; i < 1000; i++) {
				budget.onSuccess();
			}
		});
		assertThat(budget.getTokens()).isEqualTo(1000.0);
		runConcurrently(() -> {
			for (int i = 0; i < 500; i++) {
				budget.onFailure();
			}
		});
		assertThat(budget.getTokens()).as("drained, never below zero").isZero();
		runConcurrently(() -> {
			for (int i = 0; i < 1000; i++) {
				budget.onSuccess();
			}
		});
		assertThat(budget.getTokens()).as("8 x 1000 x 0.1, exact").isEqualTo(800.0);
	}

}
