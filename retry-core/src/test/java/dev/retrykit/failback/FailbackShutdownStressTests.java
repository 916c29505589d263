package dev.retrykit.failback;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Tasks submitted from many threads while the executor shuts down: each is rejected or handed back. */
class FailbackShutdownStressTests {

	private static final int THREADS = 8;

	private static final int TASKS_PER_THREAD = 300;

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.instance("audit", null, config -> config.maxAttempts(5).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
		.build();

	private final FailbackExecutor failback = this.registry.failback("audit");

	@Test
	void everyAcceptedTaskIsReturnedByShutdownAndNoneRunsAfterIt() throws Exception {
		Set<String> accepted = ConcurrentHashMap.newKeySet();
		AtomicInteger rejected = new AtomicInteger();
		AtomicInteger attempts = new AtomicInteger();
		CountDownLatch halfway = new CountDownLatch(THREADS);
		java.util.concurrent.atomic.AtomicReference<List<FailbackTask>> left = new java.util.concurrent.atomic.AtomicReference<>();
		Concurrently.run(THREADS + 1, index -> {
			if (index == THREADS) {
				halfway.await(Concurrently.TIMEOUT_SECONDS, TimeUnit.SECONDS);
				left.set(this.failback.shutdown());
				return;
			}
			for (int i = 0; i < TASKS_PER_THREAD; i++) {
				if (i == TASKS_PER_THREAD / 2) {
					halfway.countDown();
				}
				String key = index + "-" + i;
				// The task submitted as the thread reaches halfway is still in its first attempt when
				// shutdown() runs: it goes on until shutdown() has returned.
				boolean overlapsShutdown = i == TASKS_PER_THREAD / 2;
				try {
					this.failback.submit(key, () -> {
						attempts.incrementAndGet();
						long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
						while (overlapsShutdown && left.get() == null && System.nanoTime() < deadline) {
							Thread.onSpinWait();
						}
						throw new IllegalStateException("down");
					});
					accepted.add(key);
				}
				catch (RejectedExecutionException ex) {
					rejected.incrementAndGet();
				}
			}
		});
		int attemptsAtShutdown = attempts.get();
		this.time.advance(Duration.ofMinutes(1));

		assertThat(accepted.size() + rejected.get()).isEqualTo(THREADS * TASKS_PER_THREAD);
		assertThat(left.get().stream().map(task -> (String) task.key()).collect(Collectors.toSet()))
			.containsExactlyInAnyOrderElementsOf(accepted);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(attempts.get()).isEqualTo(attemptsAtShutdown).isEqualTo(accepted.size());
	}

}
