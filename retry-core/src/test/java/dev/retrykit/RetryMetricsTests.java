package dev.retrykit;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

class RetryMetricsTests {

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

	@Test
	void aFullBufferKeepsTheMostRecentEventsOldestFirst() {
		// Three events kept: the ring has four slots, so reading must skip the oldest slot's leftover.
		RetryTemplate template = RetryTemplate.builder().backoff(BackoffPolicy.none()).eventBufferSize(3).build();
		for (int i = 0; i < 5; i++) {
			int call = i;
			template.execute(context -> {
				if (context.getRetryCount() < 2) {
					throw new IllegalStateException("call " + call + ", attempt " + (context.getRetryCount() + 1));
				}
				return call;
			});
		}
		RetryMetrics metrics = template.getMetrics();
		assertThat(metrics.getRecordedEvents()).isEqualTo(15);
		assertThat(metrics.getRecentEvents())
			.extracting(RetryEvent::type, RetryEvent::attempt, RetryEvent::exceptionMessage)
			.containsExactly(tuple(RetryEventType.RETRY, 1, "call 4, attempt 1"),
					tuple(RetryEventType.RETRY, 2, "call 4, attempt 2"),
					tuple(RetryEventType.SUCCESS_AFTER_RETRY, 3, null));
	}

	@Test
	void anEventBufferBeyondTheLimitIsRefusedWithTheAllowedRange() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryTemplate.builder().eventBufferSize(RetryTemplateBuilder.MAX_EVENT_BUFFER_SIZE + 1))
			.withMessage("Invalid eventBufferSize (16777217): must be between 1 and 16777216");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryRegistry.builder().eventBufferSize(0))
			.withMessage("Invalid eventBufferSize (0): must be between 1 and 16777216");
	}

}
