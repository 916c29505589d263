package dev.retrykit;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryMetricsTest {

	@Test
	void countsFromManyThreadsAddUpAndSurviveTheThreadsEnding() throws Exception {
		RetryTemplate template = RetryTemplate.builder().backoff(BackoffPolicy.none()).build();
		int threads = 8;
		int callsPerThread = 20_000;
		// Concurrently.run returns once every worker thread has ended, so their counts must have been kept.
		Concurrently.run(threads, index -> {
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
		RetryMetrics metrics = template.getMetrics();
		long total = (long) threads * callsPerThread;
		assertThat(metrics.getSuccessfulCallsWithoutRetry()).isEqualTo(total / 2);
		assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(total / 2);
		assertThat(metrics.getAttempts()).isEqualTo(total + total / 2);
		assertThat(metrics.getRecordedEvents()).isEqualTo(total);
		assertThat(metrics.getRecentEvents()).hasSize(RetryTemplateBuilder.DEFAULT_EVENT_BUFFER_SIZE);
	}

}
