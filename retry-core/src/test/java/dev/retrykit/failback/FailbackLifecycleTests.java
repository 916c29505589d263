package dev.retrykit.failback;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Every accepted failback task ends visibly: also when its decision throws, or shutdown meets its first attempt. */
class FailbackLifecycleTests {

	private final VirtualTime time = new VirtualTime();

	private final List<String> exhausted = new CopyOnWriteArrayList<>();

	private final AtomicBoolean breaking = new AtomicBoolean();

	private final IllegalStateException broken = new IllegalStateException("classifier failed");

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("audit", null, config -> config.maxAttempts(5).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
			.retryIf(failure -> {
				if (this.breaking.get()) {
					throw this.broken;
				}
				return true;
			}))
		.failbackListener(new FailbackListener() {
			@Override
			public void onExhausted(String name, FailbackTask task, Throwable lastFailure) {
				FailbackLifecycleTests.this.exhausted.add(task.key() + ": " + lastFailure.getMessage());
			}
		})
		.build();

	private final FailbackExecutor failback = this.registry.failback("audit");

	@Test
	void aTaskWhoseRetryDecisionThrowsEndsExhaustedReportedAndCounted() {
		AtomicInteger attempts = new AtomicInteger();
		this.failback.submit("audit-1", () -> {
			attempts.incrementAndGet();
			throw new IllegalArgumentException("down");
		});
		assertThat(this.failback.pendingCount()).isEqualTo(1);
		this.breaking.set(true);

		this.time.advance(Duration.ofSeconds(1));

		assertThat(attempts).hasValue(2);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.failback.exhaustedCount()).isEqualTo(1);
		assertThat(this.exhausted).containsExactly("audit-1: classifier failed");
		assertThat(this.registry.template("audit").getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
		this.time.advance(Duration.ofMinutes(1));
		assertThat(attempts).hasValue(2);
	}

	@Test
	void shutdownReturnsATaskWhoseFirstAttemptIsStillRunningAndItIsNeverRetried() throws Exception {
		AtomicInteger attempts = new AtomicInteger();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Boolean> submitted = CompletableFuture.supplyAsync(() -> this.failback.submit("audit-1", () -> {
			attempts.incrementAndGet();
			started.countDown();
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			throw new IllegalArgumentException("down");
		}));
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

		List<FailbackTask> left = this.failback.shutdown();
		release.countDown();
		submitted.get(10, TimeUnit.SECONDS);
		this.time.advance(Duration.ofMinutes(1));

		assertThat(left).extracting(FailbackTask::key).containsExactly("audit-1");
		assertThat(attempts).hasValue(1);
		assertThat(this.failback.pendingCount()).isZero();
	}

	@Test
	void aTaskInterruptedOnItsFirstAttemptEndsExhaustedAtOnceWithTheFlagRestored() {
		AtomicInteger attempts = new AtomicInteger();
		try {
			this.failback.submit("audit-1", () -> {
				attempts.incrementAndGet();
				throw FailbackLifecycleTests.<RuntimeException>sneaky(new InterruptedException("stop"));
			});
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		this.time.advance(Duration.ofMinutes(1));
		assertThat(attempts).hasValue(1);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.exhausted).containsExactly("audit-1: stop");
	}

	@Test
	void aTaskPendingWhenTheSchedulerStopsEndsExhaustedWithTheLastFailureAsCause() {
		IllegalArgumentException down = new IllegalArgumentException("down");
		java.util.List<Throwable> reported = new CopyOnWriteArrayList<>();
		this.failback.addListener(new FailbackListener() {
			@Override
			public void onExhausted(String name, FailbackTask task, Throwable lastFailure) {
				reported.add(lastFailure);
			}
		});
		this.failback.submit("audit-1", () -> {
			throw down;
		});

		this.time.stop();

		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.failback.exhaustedCount()).isEqualTo(1);
		assertThat(reported).hasSize(1);
		assertThat(reported.get(0)).isInstanceOf(java.util.concurrent.RejectedExecutionException.class)
			.hasMessageContaining("scheduler is stopped").hasCause(down);
	}

	@SuppressWarnings("unchecked")
	private static <E extends Throwable> E sneaky(Throwable failure) throws E {
		throw (E) failure;
	}

}
