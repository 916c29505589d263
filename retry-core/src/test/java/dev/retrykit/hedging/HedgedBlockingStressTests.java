package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many hedged blocking calls from several threads at once, every copy sent at once on a shared pool,
 * with random answers, failures and copies that hang until interrupted: every call ends, and every copy
 * and every call is counted exactly once.
 */
class HedgedBlockingStressTests {

	private static final int CALLERS = 8;

	private static final int CALLS_PER_CALLER = 250;

	private static final int CALLS = CALLERS * CALLS_PER_CALLER;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final AtomicInteger copiesRun = new AtomicInteger();

	private final AtomicInteger interruptedCopies = new AtomicInteger();

	private final AtomicLong seeds = new AtomicLong();

	/** Never completes: a copy waiting on it hangs until interrupted, or gives up after a while. */
	private final CompletableFuture<String> never = new CompletableFuture<>();

	@AfterEach
	void stopExecutor() {
		this.executor.shutdownNow();
	}

	private RetryTemplate template() {
		return RetryTemplate.builder().name("search").virtualTime(new VirtualTime())
			.config(RetryConfig.builder().maxAttempts(3).ignore(IllegalStateException.class)
				.hedging(HedgingConfig.builder().delay(Duration.ZERO).maxExtraLoad(2).interruptLosers(true).executor(this.executor).build())
				.budget(RetryBudgetConfig.builder().maxTokens(1000).tokenRatio(1).build(), null)
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1000000").build())
				.build())
			.build();
	}

	/** One copy: mostly an answer at once, 10 % a retryable failure, 1 % a fatal one, else it hangs. */
	private String copy() throws Exception {
		this.copiesRun.incrementAndGet();
		int roll = new SplittableRandom(this.seeds.incrementAndGet()).nextInt(100);
		if (roll < 50) {
			return "ok";
		}
		if (roll < 60) {
			throw new IOException("down");
		}
		if (roll < 61) {
			throw new IllegalStateException("fatal");
		}
		try {
			return this.never.get(2, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			this.interruptedCopies.incrementAndGet();
			throw ex;
		}
		catch (TimeoutException ex) {
			return "slow";
		}
	}

	@Test
	void callsFromManyThreadsAllEndAndEveryOutcomeIsCountedOnce() throws Exception {
		RetryTemplate template = template();
		AtomicInteger succeeded = new AtomicInteger();
		AtomicInteger failed = new AtomicInteger();
		List<Thread> callers = new ArrayList<>();
		for (int c = 0; c < CALLERS; c++) {
			Thread caller = new Thread(() -> {
				for (int i = 0; i < CALLS_PER_CALLER; i++) {
					try {
						template.execute(context -> copy());
						succeeded.incrementAndGet();
					}
					catch (Exception ex) {
						failed.incrementAndGet();
					}
				}
			});
			caller.start();
			callers.add(caller);
		}
		for (Thread caller : callers) {
			caller.join(TimeUnit.SECONDS.toMillis(60));
			assertThat(caller.isAlive()).as("a caller still waiting").isFalse();
		}

		assertThat(succeeded.get() + failed.get()).isEqualTo(CALLS);
		RetryMetrics metrics = template.getMetrics();
		assertThat(metrics.getSuccessfulCallsWithoutRetry() + metrics.getSuccessfulCallsWithRetry())
			.isEqualTo(succeeded.get());
		assertThat(metrics.getFailedCallsWithoutRetry() + metrics.getFailedCallsWithRetry()).isEqualTo(failed.get());
		assertThat(metrics.getHedgesStarted())
			.isEqualTo(metrics.getHedgesWon() + metrics.getHedgesLost() + metrics.getHedgesCancelled());
		assertThat(metrics.getAttempts()).isEqualTo(CALLS + metrics.getHedgesStarted());
		// A copy cancelled before its task ran never reaches the callback.
		assertThat(this.copiesRun.get()).isLessThanOrEqualTo((int) metrics.getAttempts());
		assertThat(metrics.getHedgesLost()).isPositive();
		assertThat(this.interruptedCopies.get()).isPositive();
	}

}
