package dev.retrykit;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A registry listener added while instances are first used hears of every instance exactly once:
 * never missed (an application's meters would never be bound) and never twice.
 */
class RetryRegistryListenerRaceTests {

	private static final int ROUNDS = 300;

	private static final int NAMES = 8;

	@Test
	void aListenerAddedWhileInstancesAreCreatedHearsOfEachExactlyOnce() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(NAMES + 1);
		try {
			for (int round = 0; round < ROUNDS; round++) {
				RetryRegistry registry = RetryRegistry.builder().virtualTime(new VirtualTime()).build();
				Map<String, AtomicInteger> heard = new ConcurrentHashMap<>();
				CyclicBarrier start = new CyclicBarrier(NAMES + 1);
				List<Future<?>> running = new java.util.ArrayList<>();
				for (int i = 0; i < NAMES; i++) {
					String name = "instance-" + i;
					running.add(threads.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return registry.template(name);
					}));
				}
				running.add(threads.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					registry.addListener(template -> heard.computeIfAbsent(template.getName(), key -> new AtomicInteger())
						.incrementAndGet());
					return null;
				}));
				for (Future<?> call : running) {
					call.get(10, TimeUnit.SECONDS);
				}
				for (int i = 0; i < NAMES; i++) {
					assertThat(heard.get("instance-" + i)).as("round %d, instance-%d", round, i).isNotNull()
						.hasValue(1);
				}
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

}
