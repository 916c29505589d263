package dev.retrykit.hedging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A deadline over the whole chain of copies (gRFC A6), in virtual time: {@code max-duration} ends a
 * hedged call whose copies never answer and cancels them, {@code attempt-timeout} times out each copy,
 * and a blocking caller never waits forever, not even for a copy its executor dropped.
 */
class HedgedCallDeadlineTests {

	private final VirtualTime time = new VirtualTime();

	private final Downstream downstream = new Downstream();

	private final ExecutorService callers = Executors.newCachedThreadPool();

	@AfterEach
	void stopCallers() {
		this.callers.shutdownNow();
	}

	private RetryTemplate template(HedgingConfig hedging, Duration maxDuration, Duration attemptTimeout) {
		return RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3).hedging(hedging)
			.maxDuration(maxDuration).attemptTimeout(attemptTimeout).build();
	}

	private static HedgingConfig fixed(long millis) {
		return HedgingConfig.builder().delay(Duration.ofMillis(millis)).build();
	}

	@Test
	void maxDurationEndsACallWhoseCopiesNeverAnswerAndCancelsThem() {
		RetryTemplate template = template(fixed(10), Duration.ofMillis(200), null);
		CompletableFuture<String> call = template.executeAsync(this.downstream);

		this.time.advance(Duration.ofMillis(199));
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(call).isNotDone();
		this.time.advance(Duration.ofMillis(1));

		assertThat(call).isCompletedExceptionally();
		assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class)
			.cause().hasMessageContaining("max-duration");
		assertThat(this.downstream.copies).allSatisfy(copy -> assertThat(copy.cancels).isEqualTo(1));
		assertThat(template.getMetrics().getFailedCallsWithRetry() + template.getMetrics().getFailedCallsWithoutRetry())
			.isEqualTo(1);
		this.time.advance(Duration.ofSeconds(10));
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void attemptTimeoutAppliesToEachCopyAndTheLastFailureCarriesTheOthers() {
		RetryTemplate template = template(fixed(10), null, Duration.ofMillis(50));
		CompletableFuture<String> call = template.executeAsync(this.downstream);

		this.time.advance(Duration.ofMillis(69));
		assertThat(this.downstream.calls()).isEqualTo(3);
		assertThat(call).isNotDone();
		assertThat(this.downstream.copy(1).cancels).isEqualTo(1);
		assertThat(this.downstream.copy(2).cancels).isEqualTo(1);
		this.time.advance(Duration.ofMillis(1));

		assertThatThrownBy(call::join).cause().isInstanceOf(TimeoutException.class)
			.hasMessageContaining("Copy 3").hasMessageContaining("attempt-timeout")
			.satisfies(last -> assertThat(last.getSuppressed()).hasSize(2)
				.allSatisfy(other -> assertThat(other).isInstanceOf(TimeoutException.class)));
	}

	@Test
	void aBlockingCallEndsAtItsDeadlineThoughItsExecutorNeverRunsTheCopies() throws Exception {
		NeverRuns executor = new NeverRuns();
		RetryTemplate template = template(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(executor).build(),
				Duration.ofMillis(200), null);
		CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> template.execute(context -> "never"),
				this.callers);
		awaitQueued(executor, 1);
		BlockingDownstream.await(() -> this.time.pendingTasks() > 0, "the timer for the next copy");

		for (int millis = 0; millis < 200 && !caller.isDone(); millis += 10) {
			this.time.advance(Duration.ofMillis(10));
		}

		assertThatThrownBy(() -> caller.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.cause().isInstanceOf(TimeoutException.class);
		assertThat(executor.queued).hasSize(3).allSatisfy(copy -> assertThat(copy).isInstanceOf(CompletableFuture.class)
			.satisfies(future -> assertThat((CompletableFuture<?>) future).isCancelled()));
	}

	@Test
	void aBlockingCallerDoesNotWaitForACopyItsExecutorDroppedOnShutdownNow() throws Exception {
		NeverRuns executor = new NeverRuns();
		RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(3)
			.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(executor).build()).build();
		CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> template.execute(context -> "never"),
				this.callers);
		awaitQueued(executor, 1);

		executor.shutdownNow();

		assertThatThrownBy(() -> caller.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.cause().isInstanceOf(RejectedExecutionException.class);
	}

	@Test
	void aCopyDroppedFromAThreadPoolThatWasShutDownNowFailsWhileAnotherCopyStillRuns() throws Exception {
		CompletableFuture<String> release = new CompletableFuture<>();
		ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		try {
			RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(2)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(pool).build()).build();
			CompletableFuture<Void> started = new CompletableFuture<>();
			// The first copy holds the pool's only thread and ignores interrupts (join); the second stays queued.
			CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> template.execute(context -> {
				started.complete(null);
				return release.join();
			}), this.callers);
			// Running, not only taken: a worker that has taken a task but not begun it counts as active too.
			BlockingDownstream.await(() -> started.isDone() && this.time.pendingTasks() > 0,
					"the first copy, and the timer for the next");
			this.time.advance(Duration.ofMillis(10));
			assertThat(pool.getQueue()).hasSize(1);

			pool.shutdownNow();
			BlockingDownstream.await(() -> template.getMetrics().getHedgesLost() == 1, "the dropped copy's failure");
			assertThat(caller).isNotDone();
			release.complete("first, after all");

			assertThat(caller.get(10, TimeUnit.SECONDS)).isEqualTo("first, after all");
			assertThat(template.getMetrics().getHedgesLost()).isEqualTo(1);
		}
		finally {
			release.complete("released");
			pool.shutdownNow();
		}
	}

	@Test
	void aCopyAWorkerTookOffTheQueueIsNotTakenForDroppedWhileTheWorkerHasNotBegunIt() throws Exception {
		CompletableFuture<String> release = new CompletableFuture<>();
		CompletableFuture<Void> started = new CompletableFuture<>();
		HoldingQueue queue = new HoldingQueue();
		CheckedPool pool = new CheckedPool(queue);
		pool.prestartAllCoreThreads();
		try {
			RetryTemplate template = RetryTemplate.builder().name("search").virtualTime(this.time).maxAttempts(2)
				.hedging(HedgingConfig.builder().delay(Duration.ofMillis(10)).executor(pool).build()).build();
			CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> template.execute(context -> {
				started.complete(null);
				return release.join();
			}), this.callers);
			// The pool's only worker took copy 1 off the queue and is held before it begins it.
			queue.taken.get(10, TimeUnit.SECONDS);
			BlockingDownstream.await(() -> this.time.pendingTasks() > 0, "the timer for the next copy");
			this.time.advance(Duration.ofMillis(10));
			assertThat(pool.getQueue()).hasSize(1);

			pool.shutdownNow();
			int checked = pool.checks.get();
			// The caller looks for dropped copies again and again (its slices: 1, 2, 4 ... 64 ms).
			BlockingDownstream.await(() -> pool.checks.get() >= checked + 8 || caller.isDone(),
					"the caller's checks for dropped copies");
			assertThat(caller).isNotDone();
			assertThat(template.getMetrics().getHedgesLost()).isZero();

			queue.hold.complete(null);
			started.get(10, TimeUnit.SECONDS);
			BlockingDownstream.await(() -> template.getMetrics().getHedgesLost() == 1, "the dropped copy's failure");
			assertThat(caller).isNotDone();
			release.complete("first, after all");
			assertThat(caller.get(10, TimeUnit.SECONDS)).isEqualTo("first, after all");
		}
		finally {
			queue.hold.complete(null);
			release.complete("released");
			pool.shutdownNow();
		}
	}

	/** A queue whose first task, once taken by a worker, holds that worker until {@link #hold} completes. */
	static final class HoldingQueue extends LinkedBlockingQueue<Runnable> {

		final CompletableFuture<Runnable> taken = new CompletableFuture<>();

		final CompletableFuture<Void> hold = new CompletableFuture<>();

		@Override
		public Runnable take() throws InterruptedException {
			return held(super.take());
		}

		@Override
		public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
			Runnable task = super.poll(timeout, unit);
			return (task != null) ? held(task) : null;
		}

		private Runnable held(Runnable task) {
			if (this.taken.complete(task)) {
				this.hold.join();
			}
			return task;
		}

	}

	/** A pool of one thread that counts how often it is asked whether it was shut down. */
	static final class CheckedPool extends ThreadPoolExecutor {

		final java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();

		CheckedPool(LinkedBlockingQueue<Runnable> queue) {
			super(1, 1, 0, TimeUnit.SECONDS, queue);
		}

		@Override
		public boolean isShutdown() {
			this.checks.incrementAndGet();
			return super.isShutdown();
		}

	}

	private static void awaitQueued(NeverRuns executor, int tasks) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (executor.queuedCount() < tasks) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + tasks + " queued copies");
			}
			Thread.onSpinWait();
		}
	}

	/** An executor that accepts every task and runs none; {@code shutdownNow()} drops them all. */
	static final class NeverRuns extends AbstractExecutorService {

		final List<Runnable> queued = new ArrayList<>();

		private volatile boolean shutdown;

		@Override
		public synchronized void execute(Runnable command) {
			if (this.shutdown) {
				throw new RejectedExecutionException("NeverRuns is shut down");
			}
			this.queued.add(command);
		}

		synchronized int queuedCount() {
			return this.queued.size();
		}

		@Override
		public void shutdown() {
			this.shutdown = true;
		}

		@Override
		public synchronized List<Runnable> shutdownNow() {
			this.shutdown = true;
			return List.copyOf(this.queued);
		}

		@Override
		public boolean isShutdown() {
			return this.shutdown;
		}

		@Override
		public boolean isTerminated() {
			return this.shutdown;
		}

		@Override
		public boolean awaitTermination(long timeout, TimeUnit unit) {
			return this.shutdown;
		}

	}

}
