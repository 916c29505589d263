package dev.retrykit.scheduler;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.RetryConfig;
import dev.retrykit.spi.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class AsyncRetryTests {

	private final VirtualTime time = new VirtualTime();

	private final AtomicInteger attempts = new AtomicInteger();

	@Test
	void anAlreadySuccessfulFirstAttemptIsReturnedAsIs() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).build();
		CompletableFuture<String> done = CompletableFuture.completedFuture("ok");
		assertThat(template.executeAsync(() -> done)).isSameAs(done);
		assertThat(template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aResultPredicateThatThrowsEndsTheCallWithItsException() {
		IllegalStateException broken = new IllegalStateException("predicate failed");
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).retryOnResult(result -> {
			throw broken;
		}).build();
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> result = template.executeAsync(() -> attempt);
		attempt.complete("value");
		assertThat(result).isCompletedExceptionally();
		assertThat(result.handle((value, failure) -> failure).join()).isSameAs(broken);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void theResultPredicateIsAskedOnceAboutEachResult() {
		AtomicInteger asked = new AtomicInteger();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none())
			.retryOnResult(result -> {
				asked.incrementAndGet();
				return "empty".equals(result);
			}).build();
		CompletableFuture<String> result = template.executeAsync(
				() -> CompletableFuture.completedFuture((this.attempts.incrementAndGet() == 1) ? "empty" : "full"));
		assertThat(result).isCompletedWithValue("full");
		assertThat(this.attempts).hasValue(2);
		assertThat(asked).hasValue(2);
		assertThat(template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void aResultPredicateThatThrowsOnAnAlreadyCompletedFirstAttemptEndsTheCallAndClosesTheListeners() {
		IllegalStateException broken = new IllegalStateException("predicate failed");
		List<Throwable> closed = new ArrayList<>();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).retryOnResult(result -> {
			throw broken;
		}).listener(new dev.retrykit.RetryListener() {
			@Override
			public void close(RetryContext context, Throwable failure) {
				closed.add(failure);
			}
		}).build();
		CompletableFuture<String> result = template.executeAsync(() -> CompletableFuture.completedFuture("value"));
		assertThat(result.handle((value, failure) -> failure).join()).isSameAs(broken);
		assertThat(closed).containsExactly(broken);
		assertThat(template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aPolicyThatThrowsEndsTheCallWithItsExceptionAndKeepsTheAttemptsFailure() {
		IllegalStateException broken = new IllegalStateException("policy failed");
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).policy(context -> {
			throw broken;
		}).build();
		IOException down = new IOException("down");
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> result = template.executeAsync(() -> attempt);
		attempt.completeExceptionally(down);
		assertThat(result).isCompletedExceptionally();
		Throwable failure = result.handle((value, ex) -> ex).join();
		assertThat(failure).isSameAs(broken);
		assertThat(failure.getSuppressed()).containsExactly(down);
	}

	@Test
	void retriesOnTheSchedulerWithoutBlockingAndSucceeds() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(4).build();
		CompletableFuture<String> result = template.executeAsync(() -> (this.attempts.incrementAndGet() < 3)
				? CompletableFuture.failedFuture(new IOException("down")) : CompletableFuture.completedFuture("ok"));
		assertThat(result).isNotDone();
		assertThat(this.time.untilNextTask()).isEqualTo(Duration.ofMillis(100));
		this.time.advance(Duration.ofMillis(100));
		assertThat(result).isNotDone();
		assertThat(this.time.untilNextTask()).isEqualTo(Duration.ofMillis(200));
		this.time.advance(Duration.ofMillis(200));
		assertThat(result).isCompletedWithValue("ok");
		assertThat(this.time.sleeps()).isEmpty();
		assertThat(template.getMetrics().getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(template.getMetrics().getAttempts()).isEqualTo(3);
	}

	@Test
	void eventsAreStampedWithTheWallClockTimeTheyHappenedAt() {
		VirtualTime clock = new VirtualTime(Instant.parse("2026-01-01T00:00:00Z"));
		RetryTemplate template = RetryTemplate.builder().virtualTime(clock).maxAttempts(3).build();
		CompletableFuture<String> result = template.executeAsync(() -> (this.attempts.incrementAndGet() < 3)
				? CompletableFuture.failedFuture(new IOException("down")) : CompletableFuture.completedFuture("ok"));
		clock.advance(Duration.ofMillis(100));
		clock.advance(Duration.ofMillis(200));
		assertThat(result).isCompletedWithValue("ok");
		clock.advance(Duration.ofSeconds(7)); // read later: the stamps are when each event happened
		assertThat(template.getMetrics().getRecentEvents()).extracting(RetryEvent::type, RetryEvent::timestamp)
			.containsExactly(tuple(RetryEventType.RETRY, Instant.parse("2026-01-01T00:00:00Z")),
					tuple(RetryEventType.RETRY, Instant.parse("2026-01-01T00:00:00.100Z")),
					tuple(RetryEventType.SUCCESS_AFTER_RETRY, Instant.parse("2026-01-01T00:00:00.300Z")));
	}

	@Test
	void aRetryOnATimingWheelOfAClockThatMovesOnlyWhenToldFiresExactlyAfterItsDelay() {
		CountingTimeSource clock = new CountingTimeSource();
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().tick(Duration.ofMillis(10))
			.timeSource(clock).executor(Runnable::run).build();
		RetryTemplate template = RetryTemplate.builder().timeSource(clock).scheduler(wheel).maxAttempts(2)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(50))).build();
		CompletableFuture<String> result = template.executeAsync(() -> (this.attempts.incrementAndGet() < 2)
				? CompletableFuture.failedFuture(new IOException("down")) : CompletableFuture.completedFuture("ok"));
		clock.advance(Duration.ofMillis(49));
		wheel.runDueTasks();
		assertThat(result).isNotDone();
		clock.advance(Duration.ofMillis(1));
		wheel.runDueTasks();
		assertThat(result).isCompletedWithValue("ok");
		Instant retried = template.getMetrics().getRecentEvents().get(0).timestamp();
		assertThat(retried).isEqualTo(Instant.ofEpochMilli(0));
	}

	/** A clock that moves only when told to and counts its monotonic reads. */
	private static final class CountingTimeSource implements TimeSource {

		final AtomicInteger reads = new AtomicInteger();

		private final AtomicLong nanos = new AtomicLong();

		void advance(Duration duration) {
			this.nanos.addAndGet(duration.toNanos());
		}

		@Override
		public long nanoTime() {
			this.reads.incrementAndGet();
			return this.nanos.get();
		}

		@Override
		public long currentTimeMillis() {
			return this.nanos.get() / 1_000_000L;
		}

	}

	@Test
	void exhaustionCompletesWithTheLastFailureUnwrapped() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).retryOn(IOException.class)
			.backoff(BackoffPolicy.none()).build();
		List<IOException> failures = new ArrayList<>();
		CompletableFuture<String> result = template.executeAsync(() -> {
			IOException failure = new IOException("attempt " + this.attempts.incrementAndGet());
			failures.add(failure);
			return CompletableFuture.failedFuture(new CompletionException(failure));
		});
		assertThat(result).isCompletedExceptionally();
		assertThat(cause(result)).isSameAs(failures.get(2));
		assertThat(template.getMetrics().getFailedCallsWithRetry()).isEqualTo(1);
	}

	@Test
	void executionExceptionsAreUnwrappedBeforeClassification() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).retryOn(IOException.class)
			.backoff(BackoffPolicy.none()).build();
		CompletableFuture<String> result = template.executeAsync(() -> (this.attempts.incrementAndGet() == 1)
				? CompletableFuture.failedFuture(new ExecutionException(new IOException()))
				: CompletableFuture.completedFuture("ok"));
		assertThat(result).isCompletedWithValue("ok");
	}

	@Test
	void aSupplierThatThrowsCountsAsAFailedAttempt() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none()).build();
		CompletableFuture<String> result = template.executeAsync(() -> {
			if (this.attempts.incrementAndGet() == 1) {
				throw new IllegalStateException("synchronous failure");
			}
			return CompletableFuture.completedFuture("ok");
		});
		assertThat(result).isCompletedWithValue("ok");
	}

	@Test
	void recoveryReplacesTheFailure() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none()).build();
		CompletableFuture<String> result = template.executeAsync(
				() -> CompletableFuture.failedFuture(new IOException("down")),
				failure -> CompletableFuture.completedFuture("fallback: " + failure.getMessage()));
		assertThat(result).isCompletedWithValue("fallback: down");
		assertThat(template.getMetrics().getRecoveries()).isEqualTo(1);
	}

	@Test
	void cancellingTheResultCancelsThePendingRetry() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).build();
		CompletableFuture<String> result = template.executeAsync(() -> {
			this.attempts.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException());
		});
		assertThat(this.time.pendingTasks()).isEqualTo(1);
		assertThat(result.cancel(true)).isTrue();
		assertThat(this.time.pendingTasks()).isZero();
		this.time.advance(Duration.ofHours(1));
		assertThat(this.attempts).hasValue(1);
	}

	@Test
	void cancellingTwiceClosesTheListenersOnce() {
		AtomicInteger closed = new AtomicInteger();
		// Listeners catch and count what a listener throws, so the failure is checked here, not in close().
		AtomicReference<Throwable> closedWith = new AtomicReference<>();
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).listener(new dev.retrykit.RetryListener() {
			@Override
			public void close(RetryContext context, Throwable failure) {
				closed.incrementAndGet();
				closedWith.set(failure);
			}
		}).build();
		CompletableFuture<String> result = template.executeAsync(CompletableFuture::new);
		assertThat(result.cancel(true)).isTrue();
		assertThat(result.cancel(true)).isTrue();
		assertThat(result.isCancelled()).isTrue();
		assertThat(closed).hasValue(1);
		assertThat(closedWith.get()).isInstanceOf(CancellationException.class)
			.hasMessage("Retry 'default' was cancelled");
		assertThat(template.getMetrics().getListenerFailures()).isZero();
	}

	@Test
	void cancellingTheResultCancelsTheAttemptInFlight() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).build();
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> result = template.executeAsync(() -> attempt);
		result.cancel(true);
		assertThat(attempt).isCancelled();
		assertThat(result).isCancelled();
	}

	@Test
	void attemptTimeoutFailsASlowAttemptAndRetries() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).attemptTimeout(Duration.ofSeconds(1))
			.backoff(BackoffPolicy.none()).build();
		List<CompletableFuture<String>> started = new ArrayList<>();
		CompletableFuture<String> result = template.executeAsync(() -> {
			CompletableFuture<String> slow = new CompletableFuture<>();
			started.add(slow);
			return slow;
		});
		this.time.advance(Duration.ofSeconds(1));
		this.time.advance(Duration.ofSeconds(1));
		this.time.advance(Duration.ofSeconds(1));
		assertThat(started).hasSize(3).allMatch(CompletableFuture::isCancelled);
		assertThat(cause(result)).isInstanceOf(TimeoutException.class)
			.hasMessage("Attempt 3 of retry 'default' timed out after 1s");
	}

	@Test
	void maxDurationBoundsTheWholeCallIncludingTheAttemptInFlight() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(-1)
			.maxDuration(Duration.ofSeconds(5)).build();
		CompletableFuture<String> result = template.executeAsync(CompletableFuture::new);
		this.time.advance(Duration.ofSeconds(5));
		assertThat(cause(result)).isInstanceOf(TimeoutException.class);
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void unlimitedImmediateRetriesRunInConstantStackDepth() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).maxAttempts(-1)
			.backoff(BackoffPolicy.none()).build();
		int[] depths = new int[2];
		CompletableFuture<Integer> result = template.executeAsync(() -> {
			int attempt = this.attempts.incrementAndGet();
			if (attempt == 10) {
				depths[0] = Thread.currentThread().getStackTrace().length;
			}
			if (attempt == 100_000) {
				depths[1] = Thread.currentThread().getStackTrace().length;
				return CompletableFuture.completedFuture(attempt);
			}
			return CompletableFuture.failedFuture(new IOException());
		});
		assertThat(result).isCompletedWithValue(100_000);
		assertThat(depths[1]).isEqualTo(depths[0]);
	}

	@Test
	void theContextIsCurrentWhileTheSupplierRuns() {
		RetryTemplate template = RetryTemplate.builder().name("async").virtualTime(this.time)
			.backoff(BackoffPolicy.none()).build();
		List<Integer> seen = new ArrayList<>();
		CompletableFuture<String> result = template.executeAsync(() -> {
			RetryContext context = RetryTemplate.currentContext();
			seen.add(context.getRetryCount());
			return (seen.size() < 3) ? CompletableFuture.failedFuture(new IOException())
					: CompletableFuture.completedFuture(context.getName());
		});
		assertThat(result).isCompletedWithValue("async");
		assertThat(seen).containsExactly(0, 1, 2);
		assertThat(RetryTemplate.currentContext()).isNull();
	}

	@Test
	void anOpenCircuitEndsTheCallWithoutWaiting() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time)
			.config(RetryConfig.builder().maxAttempts(10)
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 2").build()).build())
			.build();
		CompletableFuture<String> result = template.executeAsync(() -> {
			this.attempts.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException());
		});
		this.time.advance(Duration.ofMillis(100));
		assertThat(cause(result)).isInstanceOf(CircuitOpenException.class);
		assertThat(this.attempts).hasValue(2);
		assertThat(this.time.pendingTasks()).isZero();
		assertThat(template.getMetrics().getCircuitOpenRejections()).isEqualTo(1);
	}

	@Test
	void retryOnResultIsAppliedToAsyncResults() {
		RetryTemplate template = RetryTemplate.builder().virtualTime(this.time).backoff(BackoffPolicy.none())
			.retryOnResult(value -> "empty".equals(value)).build();
		CompletableFuture<String> result = template.executeAsync(
				() -> CompletableFuture.completedFuture((this.attempts.incrementAndGet() < 2) ? "empty" : "full"));
		assertThat(result).isCompletedWithValue("full");
	}

	@Test
	void aMillionPendingRetriesUseNoExtraThreadAndAllCancel() {
		VirtualTime clock = new VirtualTime();
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().timeSource(clock).build();
		RetryTemplate template = RetryTemplate.builder().timeSource(clock).scheduler(wheel)
			.backoff(BackoffPolicy.fixed(Duration.ofHours(1))).build();
		Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
		IOException failure = new IOException("down");
		CompletableFuture<Void> failed = CompletableFuture.failedFuture(failure);
		List<CompletableFuture<Void>> calls = new ArrayList<>(1_000_000);
		for (int i = 0; i < 1_000_000; i++) {
			calls.add(template.executeAsync(() -> failed));
		}
		assertThat(wheel.pendingCount()).isEqualTo(1_000_000);
		// Compared by identity and by the names a retry could run on (retrykit's own threads, the common pool's
		// workers), so that a thread another test left starting or ending cannot change the reading.
		Set<Thread> started = new HashSet<>(Thread.getAllStackTraces().keySet());
		started.removeAll(threadsBefore);
		assertThat(started).extracting(Thread::getName)
			.noneMatch(name -> name.startsWith("retrykit-") || name.startsWith("ForkJoinPool.commonPool-worker-"));
		calls.forEach(call -> call.cancel(false));
		assertThat(wheel.pendingCount()).isZero();
		wheel.runDueTasks();
		assertThat(wheel.linkedNodes()).as("wheel nodes still linked after the next pass").isZero();
		clock.advance(Duration.ofHours(2));
		wheel.runDueTasks();
		assertThat(template.getMetrics().getAttempts()).isEqualTo(1_000_000);
		assertThat(calls).allMatch(CompletableFuture::isCancelled);
	}

	private static Throwable cause(CompletableFuture<?> future) {
		assertThat(future).isDone();
		try {
			future.join();
			throw new AssertionError("expected a failure");
		}
		catch (CompletionException | CancellationException ex) {
			return (ex instanceof CompletionException) ? ex.getCause() : ex;
		}
	}

}
