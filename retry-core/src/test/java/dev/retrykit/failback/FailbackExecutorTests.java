package dev.retrykit.failback;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FailbackExecutorTests {

	private final VirtualTime time = new VirtualTime();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("audit", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
		.failbackExhaustedCapacity(2)
		.failbackListener(new FailbackListener() {
			@Override
			public void onQueued(String name, FailbackTask task) {
				FailbackExecutorTests.this.events.add("queued " + task.key() + " after " + task.attempts());
			}

			@Override
			public void onSucceeded(String name, FailbackTask task) {
				FailbackExecutorTests.this.events.add("succeeded " + task.key() + " after " + task.attempts());
			}

			@Override
			public void onExhausted(String name, FailbackTask task, Throwable lastFailure) {
				FailbackExecutorTests.this.events.add("exhausted " + task.key() + ": " + lastFailure.getMessage());
			}
		})
		.build();

	private final FailbackExecutor failback = this.registry.failback("audit");

	private Runnable failing(AtomicInteger runs, int failures) {
		return () -> {
			if (runs.incrementAndGet() <= failures) {
				throw new UncheckedIOException(new IOException("down " + runs.get()));
			}
		};
	}

	@Test
	void aSuccessfulTaskRunsOnceOnTheCallersThreadAndIsNotQueued() {
		AtomicInteger runs = new AtomicInteger();
		assertThat(this.failback.submit("event-1", failing(runs, 0))).isTrue();
		assertThat(runs).hasValue(1);
		assertThat(this.failback.pendingCount()).isZero();
	}

	@Test
	void aFailedTaskIsRetriedInTheBackgroundUntilItSucceeds() {
		AtomicInteger runs = new AtomicInteger();
		assertThat(this.failback.submit("event-1", failing(runs, 2))).isFalse();
		assertThat(this.failback.pendingTasks()).singleElement().satisfies(task -> {
			assertThat(task.key()).isEqualTo("event-1");
			assertThat(task.attempts()).isEqualTo(1);
			assertThat(task.lastErrorType()).isEqualTo(UncheckedIOException.class.getName());
			assertThat(task.nextAttemptAt()).isEqualTo(task.submittedAt().plusSeconds(1));
		});
		this.time.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(2);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(3);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.events).containsExactly("queued event-1 after 1", "queued event-1 after 2",
				"succeeded event-1 after 3");
		assertThat(this.registry.template("audit").getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void anExhaustedTaskIsReportedAndKeptInABoundedList() {
		for (String key : new String[] { "a", "b", "c" }) {
			this.failback.submit(key, failing(new AtomicInteger(), 99));
		}
		this.time.advance(Duration.ofSeconds(5));
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.failback.exhaustedCount()).isEqualTo(3);
		assertThat(this.failback.exhaustedDropped()).isEqualTo(1);
		assertThat(this.failback.exhaustedTasks()).extracting(FailbackTask::key).containsExactly("b", "c");
		assertThat(this.failback.exhaustedTasks()).allSatisfy(task -> {
			assertThat(task.attempts()).isEqualTo(3);
			assertThat(task.nextAttemptAt()).isNull();
		});
		assertThat(this.events).filteredOn(event -> event.startsWith("exhausted")).hasSize(3);
	}

	@Test
	void submittingTheSameKeyReplacesThePendingTask() {
		AtomicInteger first = new AtomicInteger();
		AtomicInteger second = new AtomicInteger();
		this.failback.submit("config", failing(first, 99));
		this.failback.submit("config", failing(second, 99));
		assertThat(this.failback.pendingCount()).isEqualTo(1);
		assertThat(this.failback.replacedCount()).isEqualTo(1);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(first).hasValue(1);
		assertThat(second).hasValue(2);
	}

	@Test
	void cancelRemovesThePendingTaskForGood() {
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 99));
		assertThat(this.failback.cancel("k")).isTrue();
		assertThat(this.failback.cancel("k")).isFalse();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(runs).hasValue(1);
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void retryAllNowRunsPendingTasksWithoutWaiting() {
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 1));
		assertThat(this.failback.retryAllNow()).isEqualTo(1);
		this.time.runDueTasks();
		assertThat(runs).hasValue(2);
		assertThat(this.failback.pendingCount()).isZero();
	}

	@Test
	void checkModeThrowsTheFailureInsteadOfQueueing() {
		IllegalStateException failure = new IllegalStateException("registry down");
		assertThatThrownBy(() -> this.failback.submit("k", () -> {
			throw failure;
		}, true)).isSameAs(failure);
		assertThat(this.failback.pendingCount()).isZero();
	}

	@Test
	void aNonRetryableFailureIsExhaustedAtOnce() {
		FailbackExecutor strict = RetryRegistry.builder().virtualTime(this.time)
			.instance("strict", null, config -> config.ignore(IllegalArgumentException.class)).build()
			.failback("strict");
		strict.submit("k", () -> {
			throw new IllegalArgumentException("bad");
		});
		assertThat(strict.pendingCount()).isZero();
		assertThat(strict.exhaustedCount()).isEqualTo(1);
	}

	@Test
	void shutdownReturnsThePendingTasksAndRefusesNewOnes() {
		this.failback.submit("a", failing(new AtomicInteger(), 99));
		this.failback.submit("b", failing(new AtomicInteger(), 99));
		List<FailbackTask> left = this.failback.shutdown();
		assertThat(left).extracting(FailbackTask::key).containsExactlyInAnyOrder("a", "b");
		assertThat(this.time.pendingTasks()).isZero();
		assertThatThrownBy(() -> this.failback.submit("c", () -> { }))
			.isInstanceOf(RejectedExecutionException.class)
			.hasMessageContaining("Failback executor 'audit' is shut down");
	}

	@Test
	void concurrentSubmitsAndCancelsLoseNothingAndRunNothingTwice() throws Exception {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
			.instance("busy", null, config -> config.maxAttempts(2).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
			.build();
		FailbackExecutor busy = registry.failback("busy");
		int threads = 8;
		int perThread = 2_000;
		AtomicInteger[] runs = new AtomicInteger[threads * perThread];
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			workers.add(new Thread(() -> {
				for (int i = 0; i < perThread; i++) {
					int id = thread * perThread + i;
					runs[id] = new AtomicInteger();
					busy.submit(id, failing(runs[id], 1));
					if (i % 2 == 0) {
						busy.cancel(id);
					}
				}
			}));
		}
		workers.forEach(Thread::start);
		for (Thread worker : workers) {
			worker.join();
		}
		assertThat(busy.pendingCount()).isEqualTo(threads * perThread / 2);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(busy.pendingCount()).isZero();
		for (int id = 0; id < runs.length; id++) {
			assertThat(runs[id].get()).as("runs of task %d", id).isEqualTo((id % perThread % 2 == 0) ? 1 : 2);
		}
	}

}
