package dev.retrykit.failback;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failback listener that throws, an {@link Error} included, changes neither the submitter's outcome
 * nor the task's scheduling: the throw is counted as a listener failure and the other listeners still
 * hear of the task.
 */
class FailbackListenerFailureTests {

	/** An Error of its own, so that nothing else in the JVM reacts to it as it would to a real one. */
	static final class ListenerError extends Error {

		ListenerError(String message) {
			super(message);
		}

	}

	private final VirtualTime time = new VirtualTime();

	private final List<String> heard = new CopyOnWriteArrayList<>();

	private final FailbackListener throwing = new FailbackListener() {
		@Override
		public void onQueued(String name, FailbackTask task) {
			throw new ListenerError("onQueued");
		}

		@Override
		public void onSucceeded(String name, FailbackTask task) {
			throw new ListenerError("onSucceeded");
		}

		@Override
		public void onExhausted(String name, FailbackTask task, Throwable lastFailure) {
			throw new IllegalStateException("onExhausted");
		}
	};

	private final FailbackListener recording = new FailbackListener() {
		@Override
		public void onQueued(String name, FailbackTask task) {
			FailbackListenerFailureTests.this.heard.add("queued " + task.key());
		}

		@Override
		public void onSucceeded(String name, FailbackTask task) {
			FailbackListenerFailureTests.this.heard.add("succeeded " + task.key());
		}

		@Override
		public void onExhausted(String name, FailbackTask task, Throwable lastFailure) {
			FailbackListenerFailureTests.this.heard.add("exhausted " + task.key());
		}
	};

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("audit", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
		.failbackListener(this.throwing)
		.failbackListener(this.recording)
		.build();

	private final FailbackExecutor failback = this.registry.failback("audit");

	private static Runnable failing(AtomicInteger runs, int failures) {
		return () -> {
			if (runs.incrementAndGet() <= failures) {
				throw new UncheckedIOException(new IOException("down " + runs.get()));
			}
		};
	}

	@Test
	void aListenerErrorWhenQueuedNeitherReachesTheSubmitterNorLeavesTheTaskUnscheduled() {
		AtomicInteger runs = new AtomicInteger();

		assertThat(this.failback.submit("event-1", failing(runs, 1))).isFalse();
		assertThat(this.failback.pendingCount()).isEqualTo(1);

		this.time.advance(Duration.ofSeconds(1));

		assertThat(runs).hasValue(2);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.heard).containsExactly("queued event-1", "succeeded event-1");
		assertThat(this.registry.template("audit").getMetrics().getListenerFailures()).isEqualTo(2);
	}

	@Test
	void aListenerThatThrowsWhenATaskIsExhaustedLeavesItExhaustedReportedAndCounted() {
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("event-2", failing(runs, 10));

		this.time.advance(Duration.ofSeconds(1));
		this.time.advance(Duration.ofSeconds(1));

		assertThat(runs).hasValue(3);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.failback.exhaustedCount()).isEqualTo(1);
		assertThat(this.failback.exhaustedTasks()).extracting(FailbackTask::key).containsExactly("event-2");
		assertThat(this.heard).containsExactly("queued event-2", "queued event-2", "exhausted event-2");
		// Two onQueued errors and one onExhausted exception.
		assertThat(this.registry.template("audit").getMetrics().getListenerFailures()).isEqualTo(3);
	}

}
