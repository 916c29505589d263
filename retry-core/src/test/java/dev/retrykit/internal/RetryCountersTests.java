package dev.retrykit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import dev.retrykit.RetryTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryCountersTests {

	@Test
	void shortLivedThreadsDoNotGrowTheBlocksWhenNobodyReadsTheMetrics() throws InterruptedException {
		RetryTemplate template = RetryTemplate.builder().build();
		RetryCounters counters = (RetryCounters) template.getMetrics();
		int threads = 1000;
		for (int i = 0; i < threads; i++) {
			// One thread per call, as with a virtual thread per request; each has ended before the next starts.
			Thread thread = new Thread(() -> template.execute(context -> "ok"));
			thread.start();
			thread.join();
			assertThat(counters.blockCount()).as("blocks after %d threads", i + 1).isLessThanOrEqualTo(65);
		}

		assertThat(template.getMetrics().getAttempts()).isEqualTo(threads);
		assertThat(template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(threads);
		assertThat(counters.blockCount()).isZero();
	}

	@Test
	void liveThreadsKeepTheirBlocksAndTheirCounts() throws InterruptedException {
		RetryTemplate template = RetryTemplate.builder().build();
		RetryCounters counters = (RetryCounters) template.getMetrics();
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch called = new CountDownLatch(200);
		List<Thread> alive = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			Thread thread = new Thread(() -> {
				template.execute(context -> "ok");
				called.countDown();
				try {
					release.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			alive.add(thread);
			thread.start();
		}
		called.await();

		assertThat(counters.blockCount()).isEqualTo(200);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(200);
		release.countDown();
		for (Thread thread : alive) {
			thread.join();
		}
		assertThat(template.getMetrics().getAttempts()).isEqualTo(200);
		assertThat(counters.blockCount()).isZero();
	}

	@Test
	void aTemplatePerCallDoesNotGrowEachThreadsSlotsWithoutBound() throws InterruptedException {
		int templates = RetryCounters.INDEXED_INSTANCES + 200;
		RetryTemplate last = null;
		for (int i = 0; i < templates; i++) {
			last = RetryTemplate.builder().build();
			last.execute(context -> "ok");
		}

		assertThat(ContextStack.get().indexedSlots()).isLessThanOrEqualTo(RetryCounters.INDEXED_INSTANCES);
		// Instances past the indexed ones still count exactly, from any thread.
		RetryTemplate overflowing = last;
		assertThat(((RetryCounters) overflowing.getMetrics()).id).isGreaterThanOrEqualTo(RetryCounters.INDEXED_INSTANCES);
		Thread other = new Thread(() -> overflowing.execute(context -> "ok"));
		other.start();
		other.join();
		overflowing.execute(context -> "ok");
		assertThat(overflowing.getMetrics().getAttempts()).isEqualTo(3);
		assertThat(overflowing.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(3);
	}

}
