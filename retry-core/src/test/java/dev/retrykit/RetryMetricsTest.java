package dev.retrykit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryMetricsTest {

	@Test
	void countsFromManyThreadsAddUpAndSurviveTheThreadsEnding() throws Exception {
		RetryTemplate template = RetryTemplate.builder().backoff(BackoffPolicy.none()).build();
		int threads = 8;
		int callsPerThread = 20_000;
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				await(start);
				for (int i = 0; i < callsPerThread; i++) {
					int call = i;
					template.execute(context -> {
						if (call % 2 == 0 && context.getRetryCount() == 0) {
							throw new IllegalStateException();
						}
						return call;
					});
				}
			});
			workers.add(worker);
			worker.start();
		}
		start.countDown();
		for (Thread worker : workers) {
			worker.join(TimeUnit.MINUTES.toMillis(1));
		}
		RetryMetrics metrics = template.getMetrics();
		long total = (long) threads * callsPerThread;
		assertThat(metrics.getSuccessfulCallsWithoutRetry()).isEqualTo(total / 2);
		assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(total / 2);
		assertThat(metrics.getAttempts()).isEqualTo(total + total / 2);
		assertThat(metrics.getRecordedEvents()).isEqualTo(total);
		assertThat(metrics.getRecentEvents()).hasSize(RetryTemplateBuilder.DEFAULT_EVENT_BUFFER_SIZE);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
