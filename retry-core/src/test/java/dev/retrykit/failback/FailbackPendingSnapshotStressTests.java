package dev.retrykit.failback;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.RetryRegistry;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.testing.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * At most one pending task per key in every snapshot of {@code pendingTasks()}, while many threads
 * submit, replace and cancel tasks of the same keys and the executor's table grows.
 */
class FailbackPendingSnapshotStressTests {

	private static final int WRITERS = 6;

	private static final int READERS = 2;

	private static final int ROUNDS = 60;

	private static final int KEYS = 200;

	private final VirtualTime time = new VirtualTime();

	private final RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
		.defaults(dev.retrykit.RetryConfig.builder().maxAttempts(5).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
			.build())
		.build();

	@Test
	void noSnapshotEverShowsTwoPendingTasksForOneKey() throws Exception {
		AtomicReference<String> duplicate = new AtomicReference<>();
		AtomicInteger snapshots = new AtomicInteger();
		for (int round = 0; round < ROUNDS && duplicate.get() == null; round++) {
			// A new executor each round: its table grows from empty, resizing while it is read.
			FailbackExecutor failback = this.registry.failback("audit-" + round);
			AtomicBoolean writing = new AtomicBoolean(true);
			AtomicInteger writersLeft = new AtomicInteger(WRITERS);
			Concurrently.run(WRITERS + READERS, index -> {
				if (index >= WRITERS) {
					while (writing.get()) {
						List<FailbackTask> tasks = failback.pendingTasks();
						snapshots.incrementAndGet();
						Set<Object> keys = new HashSet<>();
						for (FailbackTask task : tasks) {
							if (!keys.add(task.key())) {
								duplicate.compareAndSet(null, "key " + task.key() + " twice in " + tasks.size() + " tasks");
							}
						}
					}
					return;
				}
				for (int i = 0; i < KEYS * 2; i++) {
					String key = "k" + ((i * 7 + index * 13) % KEYS);
					failback.submit(key, () -> {
						throw new IllegalStateException("down");
					});
					if (i % 5 == index % 5) {
						failback.cancel(key);
					}
				}
				if (writersLeft.decrementAndGet() == 0) {
					writing.set(false);
				}
			});
			failback.shutdown();
		}

		assertThat(duplicate.get()).as("a snapshot with a key twice, after %d snapshots", snapshots.get()).isNull();
		assertThat(snapshots.get()).isPositive();
	}

}
