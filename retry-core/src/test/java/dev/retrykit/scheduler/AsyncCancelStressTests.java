package dev.retrykit.scheduler;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import dev.retrykit.RetryTemplate;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Cancelling an async call while its retry starts on another thread, many times over. */
class AsyncCancelStressTests {

	private static final int ROUNDS = 2_000;

	private final FakeTimeSource clock = new FakeTimeSource();

	private final TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().tick(Duration.ofMillis(10))
		.wheelSize(8).timeSource(this.clock).executor(Runnable::run).build();

	private final RetryTemplate template = RetryTemplate.builder().timeSource(this.clock).scheduler(this.wheel)
		.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofMillis(10))).build();

	@Test
	void anAttemptStageReturnedAfterCancelReturnedIsCancelled() throws Exception {
		AtomicReferenceArray<CompletableFuture<String>> calls = new AtomicReferenceArray<>(ROUNDS);
		AtomicReferenceArray<CompletableFuture<String>> stages = new AtomicReferenceArray<>(ROUNDS);
		AtomicInteger cancelled = new AtomicInteger();
		java.util.concurrent.atomic.AtomicIntegerArray cancelReturned = new java.util.concurrent.atomic.AtomicIntegerArray(ROUNDS);
		IOException down = new IOException("down");
		CyclicBarrier barrier = new CyclicBarrier(2);
		Concurrently.run(2, index -> {
			for (int round = 0; round < ROUNDS; round++) {
				int current = round;
				if (index == 0) {
					AtomicInteger attempts = new AtomicInteger();
					calls.set(round, this.template.executeAsync(() -> {
						if (attempts.incrementAndGet() == 1) {
							return CompletableFuture.failedFuture(down);
						}
						CompletableFuture<String> stage = new CompletableFuture<>();
						stages.set(current, stage);
						// Widens the race: an attempt that started goes on until cancel() has returned.
						long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
						while (cancelReturned.get(current) == 0 && System.nanoTime() < deadline) {
							Thread.onSpinWait();
						}
						return stage;
					}));
					this.clock.advanceMillis(10);
				}
				barrier.await(Concurrently.TIMEOUT_SECONDS, TimeUnit.SECONDS);
				if (index == 0) {
					this.wheel.runDueTasks();
				}
				else {
					if (calls.get(round).cancel(true)) {
						cancelled.incrementAndGet();
					}
					cancelReturned.set(round, 1);
				}
				barrier.await(Concurrently.TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
		});
		assertThat(cancelled).hasValue(ROUNDS);
		for (int round = 0; round < ROUNDS; round++) {
			assertThat(calls.get(round)).isCancelled();
			CompletableFuture<String> stage = stages.get(round);
			if (stage != null) {
				assertThat(stage).as("attempt 2 of round %d", round).isCancelled();
			}
		}
		assertThat(this.wheel.pendingCount()).isZero();
	}

}
