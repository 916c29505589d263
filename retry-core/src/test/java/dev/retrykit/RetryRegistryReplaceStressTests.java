package dev.retrykit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.spi.Sleeper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reconfigures instances while 16 threads call them. Each configuration ties its backoff to its attempt
 * limit (k attempts, a fixed k-millisecond delay), so a call that saw a mix of two configurations would
 * wait a delay that does not match the number of attempts it made.
 */
class RetryRegistryReplaceStressTests {

	private static final int CALLERS = 16;

	private static final int CALLS_PER_CALLER = 1_500;

	private static final String[] INSTANCES = { "a", "b", "c", "d" };

	/** Each thread's waits during its current call; the sleeper only records them. */
	private static final ThreadLocal<List<Long>> SLEEPS = ThreadLocal.withInitial(ArrayList::new);

	private static RetryConfig config(int maxAttempts) {
		RetryConfigBuilder builder = RetryConfig.builder().maxAttempts(maxAttempts)
			.backoff(BackoffPolicy.fixed(Duration.ofMillis(maxAttempts)));
		if (maxAttempts % 2 == 0) {
			// Half of the configurations leave the plain path: a breaker that never trips.
			builder.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1000000000").build());
		}
		return builder.build();
	}

	@Test
	void noCallSeesAMixOfTwoConfigsAndNoCountIsLostWhileInstancesAreReconfigured() throws Exception {
		Sleeper recording = nanos -> SLEEPS.get().add(nanos);
		RetryRegistryBuilder builder = RetryRegistry.builder().sleeper(recording);
		for (String name : INSTANCES) {
			builder.instance(name, config(2));
		}
		RetryRegistry registry = builder.build();
		// A following variant doubles the instance's delay: its calls must see k attempts and 2k-ms waits.
		List<RetryTemplate> variants = new ArrayList<>();
		for (String name : INSTANCES) {
			variants.add(registry.template(name).variant(base -> RetryConfig.builder(base)
				.backoff(BackoffPolicy.fixed(Duration.ofMillis(2L * base.getMaxAttempts()))).build()));
		}
		AtomicLongArray calls = new AtomicLongArray(INSTANCES.length);
		AtomicLongArray attempts = new AtomicLongArray(INSTANCES.length);
		AtomicInteger mixed = new AtomicInteger();
		AtomicLong replaces = new AtomicLong();
		AtomicBoolean callersDone = new AtomicBoolean();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(CALLERS + 1);
		try {
			Future<?> reconfigurer = pool.submit(() -> {
				start.await();
				while (!callersDone.get()) {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					registry.replace(INSTANCES[random.nextInt(INSTANCES.length)], config(2 + random.nextInt(5)));
					replaces.incrementAndGet();
				}
				return null;
			});
			List<Future<?>> callers = new ArrayList<>();
			for (int t = 0; t < CALLERS; t++) {
				callers.add(pool.submit(() -> {
					start.await();
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int i = 0; i < CALLS_PER_CALLER; i++) {
						int instance = random.nextInt(INSTANCES.length);
						boolean variant = random.nextBoolean();
						RetryTemplate template = variant ? variants.get(instance) : registry.template(INSTANCES[instance]);
						int made = call(template);
						calls.incrementAndGet(instance);
						attempts.addAndGet(instance, made);
						long expectedDelay = TimeUnit.MILLISECONDS.toNanos((variant ? 2L : 1L) * made);
						List<Long> sleeps = SLEEPS.get();
						if (sleeps.size() != made - 1 || sleeps.stream().anyMatch(delay -> delay != expectedDelay)) {
							mixed.incrementAndGet();
						}
						sleeps.clear();
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> caller : callers) {
				caller.get(60, TimeUnit.SECONDS);
			}
			callersDone.set(true);
			reconfigurer.get(10, TimeUnit.SECONDS);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(mixed).hasValue(0);
		assertThat(replaces.get()).isGreaterThan(10);
		for (int i = 0; i < INSTANCES.length; i++) {
			RetryMetrics metrics = registry.template(INSTANCES[i]).getMetrics();
			assertThat(metrics.getFailedCallsWithRetry()).as("calls of %s", INSTANCES[i]).isEqualTo(calls.get(i));
			assertThat(metrics.getAttempts()).as("attempts of %s", INSTANCES[i]).isEqualTo(attempts.get(i));
		}
	}

	private static int call(RetryTemplate template) {
		int[] made = new int[1];
		try {
			template.execute(context -> {
				made[0]++;
				throw new IllegalStateException("down");
			});
		}
		catch (IllegalStateException expected) {
			// every attempt fails, so every call ends here after its configuration's attempts
		}
		return made[0];
	}

}
