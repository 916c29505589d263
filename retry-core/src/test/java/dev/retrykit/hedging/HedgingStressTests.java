package dev.retrykit.hedging;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreakerConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many hedged calls at once with random latencies and failures: every call ends, nothing stays
 * pending, and every copy and every call is counted exactly once.
 */
class HedgingStressTests {

	private static final int CALLS = 10_000;

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger copiesSent = new AtomicInteger();

	private RetryTemplate template() {
		return RetryTemplate.builder().name("search").virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(3).ignore(IllegalStateException.class)
				.hedging(HedgingConfig.builder().quantile(0.9).minDelay(Duration.ofMillis(1))
					.maxDelay(Duration.ofMillis(50)).maxExtraLoad(2).build())
				.budget(RetryBudgetConfig.builder().maxTokens(1000).tokenRatio(0.5).build(), null)
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures > 1000000").build())
				.build())
			.build();
	}

	/** A latency in nanoseconds: mostly 1-10ms, one in twenty 20-200ms. */
	private static long latency(SplittableRandom random) {
		return (random.nextInt(20) == 0) ? random.nextLong(20_000_000, 200_000_000) : random.nextLong(1_000_000, 10_000_000);
	}

	/** An outcome: mostly a value, 10 % a retryable failure, 0.5 % a fatal one. */
	private static void answer(CompletableFuture<String> copy, SplittableRandom random) {
		int roll = random.nextInt(1000);
		if (roll < 5) {
			copy.completeExceptionally(new IllegalStateException("fatal"));
		}
		else if (roll < 105) {
			copy.completeExceptionally(new IOException("down"));
		}
		else {
			copy.complete("ok");
		}
	}

	@Test
	void tenThousandCallsInVirtualTimeAllEndAndEveryOutcomeIsCountedOnce() {
		RetryTemplate template = template();
		SplittableRandom random = new SplittableRandom(29);
		List<CompletableFuture<String>> calls = new ArrayList<>();
		for (int i = 0; i < CALLS; i++) {
			calls.add(template.executeAsync(() -> {
				this.copiesSent.incrementAndGet();
				CompletableFuture<String> copy = new CompletableFuture<>();
				SplittableRandom own = random.split();
				this.time.schedule(() -> answer(copy, own), latency(own), TimeUnit.NANOSECONDS);
				return copy;
			}));
			this.time.advance(Duration.ofNanos(random.nextLong(0, 20_000)));
		}

		this.time.advance(Duration.ofSeconds(10));

		assertThat(calls).allSatisfy(call -> assertThat(call).isDone());
		assertThat(this.time.pendingTasks()).isZero();
		assertCountedOnce(template.getMetrics(), calls);
		assertThat(template.getMetrics().getHedgesWon()).isPositive();
		assertThat(template.getMetrics().getHedgesLost()).isPositive();
		assertThat(template.getMetrics().getHedgesCancelled()).isPositive();
	}

	@Test
	void callsAnsweredOnManyThreadsWhileTheTimerHedgesAllEndAndEveryOutcomeIsCountedOnce() throws Exception {
		RetryTemplate template = template();
		ConcurrentLinkedQueue<Object[]> inFlight = new ConcurrentLinkedQueue<>();
		AtomicLong seeds = new AtomicLong();
		List<CompletableFuture<String>> calls = new ArrayList<>();
		for (int i = 0; i < CALLS; i++) {
			calls.add(template.executeAsync(() -> {
				this.copiesSent.incrementAndGet();
				CompletableFuture<String> copy = new CompletableFuture<>();
				long seed = seeds.incrementAndGet();
				inFlight.add(new Object[] { copy, this.time.nanoTime() + latency(new SplittableRandom(seed)), seed });
				return copy;
			}));
		}
		int threads = 4;
		CountDownLatch done = new CountDownLatch(threads);
		AtomicInteger unfinished = new AtomicInteger(CALLS);
		calls.forEach(call -> call.whenComplete((value, failure) -> unfinished.decrementAndGet()));
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				while (unfinished.get() > 0) {
					Object[] entry = inFlight.poll();
					if (entry == null) {
						Thread.onSpinWait();
						continue;
					}
					@SuppressWarnings("unchecked")
					CompletableFuture<String> copy = (CompletableFuture<String>) entry[0];
					if ((long) entry[1] > this.time.nanoTime()) {
						inFlight.add(entry);
						continue;
					}
					answer(copy, new SplittableRandom((long) entry[2] * 31));
				}
				done.countDown();
			});
			worker.setDaemon(true);
			worker.start();
		}
		// Virtual time goes on until the workers answered every copy (a retry they start late needs time to
		// pass for its answer to fall due), bounded by real time.
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (unfinished.get() > 0 && System.nanoTime() < giveUp) {
			this.time.advance(Duration.ofMillis(1));
		}
		assertThat(done.await(30, TimeUnit.SECONDS))
			.as(() -> "unfinished: " + calls.stream().filter(call -> !call.isDone()).limit(3).toList() + ", queue "
					+ inFlight.size())
			.isTrue();
		this.time.advance(Duration.ofSeconds(10));

		assertThat(calls).allSatisfy(call -> assertThat(call).isDone());
		assertThat(this.time.pendingTasks()).isZero();
		assertCountedOnce(template.getMetrics(), calls);
	}

	private void assertCountedOnce(RetryMetrics metrics, List<CompletableFuture<String>> calls) {
		long succeeded = calls.stream().filter(call -> !call.isCompletedExceptionally()).count();
		assertThat(metrics.getSuccessfulCallsWithoutRetry() + metrics.getSuccessfulCallsWithRetry()).isEqualTo(succeeded);
		assertThat(metrics.getSuccessfulCallsWithoutRetry() + metrics.getSuccessfulCallsWithRetry()
				+ metrics.getFailedCallsWithoutRetry() + metrics.getFailedCallsWithRetry()).isEqualTo(CALLS);
		assertThat(metrics.getHedgesStarted())
			.isEqualTo(metrics.getHedgesWon() + metrics.getHedgesLost() + metrics.getHedgesCancelled());
		assertThat(this.copiesSent.get()).isEqualTo(CALLS + metrics.getHedgesStarted());
		assertThat(metrics.getAttempts()).isEqualTo(this.copiesSent.get());
		assertThat(metrics.getHedgesStarted()).isPositive();
	}

}
