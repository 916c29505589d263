package dev.retrykit.budget;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

import dev.retrykit.VirtualTime;
import dev.retrykit.spi.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RatioBudgetTests {

	private final VirtualTime time = new VirtualTime();

	private RetryBudget budget(double ratio, int minPerSecond, Duration window) {
		return RetryBudget.create("downstream",
				RetryBudgetConfig.builder().ratio(ratio).minPerSecond(minPerSecond).window(window).build(), this.time);
	}

	private static int retries(RetryBudget budget, int wanted) {
		int granted = 0;
		for (int i = 0; i < wanted; i++) {
			if (budget.tryAcquireRetry()) {
				granted++;
			}
		}
		return granted;
	}

	private static void calls(RetryBudget budget, int calls) {
		for (int i = 0; i < calls; i++) {
			budget.onCall();
		}
	}

	@Test
	void callsAndRetriesAreCountedInSlotsOfTheCoarseClockWithoutReadingTheExactOne() {
		AtomicInteger exactReadings = new AtomicInteger();
		TimeSource coarseOnly = new TimeSource() {
			@Override
			public long nanoTime() {
				exactReadings.incrementAndGet();
				return RatioBudgetTests.this.time.nanoTime();
			}

			@Override
			public long coarseNanoTime() {
				return RatioBudgetTests.this.time.nanoTime();
			}

			@Override
			public long currentTimeMillis() {
				return RatioBudgetTests.this.time.currentTimeMillis();
			}
		};
		RetryBudget budget = RetryBudget.create("downstream",
				RetryBudgetConfig.builder().ratio(0.5).minPerSecond(0).window(Duration.ofSeconds(1)).build(), coarseOnly);

		calls(budget, 10);
		assertThat(retries(budget, 10)).isEqualTo(5);
		this.time.advance(Duration.ofMillis(1100));
		assertThat(budget.tryAcquireRetry()).as("the window moved on with the coarse clock").isFalse();
		calls(budget, 2);
		assertThat(retries(budget, 2)).isEqualTo(1);

		assertThat(exactReadings).as("no exact clock read on the call path").hasValue(0);
	}

	@Test
	void aBudgetYoungerThanItsWindowCountsTheCallsItSawAtTheRateItSawThem() {
		// 1 call a second, a reserve of 10 retries a window: a full window of calls funds one retry more.
		RetryBudget budget = budget(0.1, 1, Duration.ofSeconds(10));
		int granted = 0;
		for (int second = 0; second < 5; second++) {
			calls(budget, 1);
			granted += retries(budget, 3);
			this.time.advance(Duration.ofSeconds(1));
		}
		// Without extrapolation a started replica would allow 10 + 0.1 × 5 calls: 10.
		assertThat(granted).isEqualTo(11);
	}

	@Test
	void aStartUpOutageGetsNoMoreThanAFullWindowWouldAllow() {
		RetryBudget budget = budget(0.1, 0, Duration.ofSeconds(10));
		int granted = 0;
		for (int second = 0; second < 10; second++) {
			for (int call = 0; call < 10; call++) {
				calls(budget, 1);
				granted += retries(budget, 2);
				this.time.advance(Duration.ofMillis(100));
			}
		}
		// A steady window of 100 calls funds 10 retries; the first window funds no more.
		assertThat(granted).isEqualTo(10);
	}

	@Test
	void aBudgetThatSawNoCallAllowsItsReserveOnly() {
		RetryBudget budget = budget(0.2, 3, Duration.ofSeconds(10));
		assertThat(budget.getKind()).isEqualTo(RetryBudgetConfig.Kind.RATIO);
		assertThat(budget.getAvailable()).isEqualTo(30.0);
		assertThat(retries(budget, 100)).isEqualTo(30);
		assertThat(budget.getAvailable()).isZero();
		assertThat(budget.getMaxTokens()).isZero();
	}

	@Test
	void retriesMayBeTheRatioOfTheCallsPlusTheReserve() {
		RetryBudget budget = budget(0.2, 0, Duration.ofSeconds(10));
		calls(budget, 100);
		assertThat(budget.getAvailable()).isEqualTo(20.0);
		assertThat(retries(budget, 50)).isEqualTo(20);
		// Outcomes do not move a ratio budget: only calls and retries do.
		budget.onSuccess();
		budget.onFailure();
		assertThat(budget.tryAcquireRetry()).isFalse();
		calls(budget, 5);
		assertThat(retries(budget, 5)).isEqualTo(1);
	}

	@Test
	void theShareBankedOverAHealthyWindowCannotBeSpentInOneSecond() {
		RetryBudget budget = budget(0.2, 1, Duration.ofSeconds(10));
		for (int second = 0; second < 9; second++) {
			calls(budget, 100);
			this.time.advance(Duration.ofSeconds(1));
		}
		// 900 calls in the window fund 180 retries, but this second's 100 calls only 20 (and the reserve 10).
		calls(budget, 100);
		assertThat(retries(budget, 500)).isEqualTo(30);
		int[] perSecond = new int[30];
		for (int second = 0; second < perSecond.length; second++) {
			this.time.advance(Duration.ofSeconds(1));
			calls(budget, 100);
			perSecond[second] = retries(budget, 500);
		}
		for (int second = 0; second < perSecond.length; second++) {
			assertThat(perSecond[second]).as("second " + second).isLessThanOrEqualTo(30);
			int window = (second >= 9) ? 0 : 30;
			for (int back = 0; back < 10 && second - back >= 0; back++) {
				window += perSecond[second - back];
			}
			// The window's room: 0.2 x its 1,000 calls + the reserve of 10.
			assertThat(window).as("window ending at second " + second).isLessThanOrEqualTo(210);
		}
		int lastWindow = 0;
		for (int second = 20; second < 30; second++) {
			lastWindow += perSecond[second];
		}
		assertThat(lastWindow).as("a long outage: the ratio, and the reserve once per window").isBetween(200, 210);
	}

	@Test
	void callsAndRetriesLeaveTheWindowSoTheReserveComesBack() {
		RetryBudget budget = budget(0.5, 1, Duration.ofSeconds(2));
		calls(budget, 10);
		assertThat(retries(budget, 100)).isEqualTo(7);
		this.time.advance(Duration.ofMillis(1900));
		assertThat(retries(budget, 100)).as("still in the window").isZero();
		this.time.advance(Duration.ofMillis(100));
		assertThat(budget.getAvailable()).isEqualTo(2.0);
		assertThat(retries(budget, 100)).isEqualTo(2);
		this.time.advance(Duration.ofMinutes(5));
		assertThat(retries(budget, 100)).isEqualTo(2);
	}

	@Test
	void sharedByReplicasTheReserveIsDividedAmongThem() {
		RetryBudget budget = budget(0.1, 10, Duration.ofSeconds(10));
		budget.synchronise(delta -> {
			throw new AssertionError("a ratio budget exchanges nothing");
		}, 25, RandomGenerator.getDefault());
		assertThat(budget.getAvailable()).isEqualTo(4.0);
		calls(budget, 30);
		assertThat(retries(budget, 100)).isEqualTo(7);
	}

	@Test
	void aLiveChangeKeepsTheCallsAndRetriesOfTheWindow() {
		RetryBudget budget = budget(0.2, 0, Duration.ofSeconds(10));
		calls(budget, 100);
		assertThat(retries(budget, 5)).isEqualTo(5);
		RetryBudget changed = budget.withConfig(RetryBudgetConfig.builder().ratio(0.5).minPerSecond(0).build());
		assertThat(changed.getAvailable()).isEqualTo(45.0);
		RetryBudget bucket = budget.withConfig(RetryBudgetConfig.ofDefaults());
		assertThat(bucket.getKind()).isEqualTo(RetryBudgetConfig.Kind.TOKEN_BUCKET);
		assertThat(bucket.getTokens()).isEqualTo(10.0);
	}

	@Test
	void showsItsBalanceAndSettings() {
		RetryBudget budget = budget(0.2, 1, Duration.ofSeconds(10));
		assertThat(budget).hasToString("RetryBudget{name='downstream', available=10.0, ratio=0.2, minPerSecond=1, window=10s}");
	}

	@Test
	void threadsRetryingAtOnceNeverExceedTheRatio() throws InterruptedException {
		RetryBudget budget = budget(0.25, 0, Duration.ofSeconds(10));
		int threads = 8;
		AtomicInteger granted = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		Thread[] workers = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			workers[t] = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				for (int i = 0; i < 10_000; i++) {
					budget.onCall();
					if (budget.tryAcquireRetry()) {
						granted.incrementAndGet();
					}
					if (budget.tryAcquireRetry()) {
						granted.incrementAndGet();
					}
				}
			});
			workers[t].start();
		}
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		// Each retry is granted by compare-and-set on the count it was checked against: never past the share.
		assertThat(granted.get()).isLessThanOrEqualTo(threads * 10_000 / 4).isGreaterThan(threads * 10_000 / 4 - threads);
	}

}
