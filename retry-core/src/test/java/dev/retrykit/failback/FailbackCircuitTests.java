package dev.retrykit.failback;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.retrykit.RetryConfigBuilder;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitOpenException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failback tasks that meet an open circuit wait for it in the background: counted once when they end,
 * each refused attempt counted as a rejection, re-checked at a bounded pace and within max-duration.
 */
class FailbackCircuitTests {

	private final VirtualTime time = new VirtualTime();

	private final List<String> queued = new CopyOnWriteArrayList<>();

	private RetryTemplate template;

	private CircuitBreaker breaker;

	private FailbackExecutor failback;

	private void instance(Consumer<RetryConfigBuilder> settings) {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time)
			.instance("audit", null, config -> settings.accept(config.maxAttempts(3)
				.backoff(BackoffPolicy.fixed(Duration.ofSeconds(1)))
				.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1")
					.timeout(Duration.ofSeconds(30)).build())))
			.failbackListener(new FailbackListener() {
				@Override
				public void onQueued(String name, FailbackTask task) {
					FailbackCircuitTests.this.queued.add(task.key() + " after " + task.attempts());
				}
			})
			.build();
		this.template = registry.template("audit");
		this.breaker = this.template.getCircuitBreaker();
		this.failback = registry.failback("audit");
	}

	private void tripCircuit() {
		this.breaker.onFailure(this.breaker.acquirePermission());
	}

	private static Runnable failing(AtomicInteger runs, int failures) {
		return () -> {
			if (runs.incrementAndGet() <= failures) {
				throw new UncheckedIOException(new IOException("down " + runs.get()));
			}
		};
	}

	private List<RetryEventType> events() {
		return this.template.getMetrics().getRecentEvents().stream().map(RetryEvent::type).toList();
	}

	@Test
	void aTaskRefusedAtFirstAndLaterSuccessfulIsCountedOnceAsASuccess() {
		instance(config -> { });
		tripCircuit();
		AtomicInteger runs = new AtomicInteger();
		assertThat(this.failback.submit("k", failing(runs, 0))).isFalse();
		RetryMetrics metrics = this.template.getMetrics();
		assertThat(metrics.getCircuitOpenRejections()).isEqualTo(1);
		assertThat(metrics.getFailedCallsWithoutRetry()).isZero();
		assertThat(this.failback.pendingCount()).isEqualTo(1);
		this.time.advance(Duration.ofSeconds(30));
		assertThat(runs).hasValue(1);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(metrics.getSuccessfulCallsWithoutRetry()).isEqualTo(1);
		assertThat(metrics.getFailedCallsWithoutRetry() + metrics.getFailedCallsWithRetry()).isZero();
		assertThat(metrics.getCircuitOpenRejections()).isEqualTo(1);
	}

	@Test
	void aRetryRefusedByTheCircuitIsARejectionAndTheTaskIsCountedWhenItSucceeds() {
		instance(config -> config.circuitBreaker(CircuitBreakerConfig.builder().trip("consecutiveFailures >= 2")
			.timeout(Duration.ofSeconds(30)).build()));
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 1));
		tripCircuit();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(1);
		RetryMetrics metrics = this.template.getMetrics();
		assertThat(metrics.getCircuitOpenRejections()).isEqualTo(1);
		assertThat(metrics.getFailedCallsWithoutRetry() + metrics.getFailedCallsWithRetry()).isZero();
		this.time.advance(Duration.ofSeconds(30));
		assertThat(runs).hasValue(2);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(metrics.getFailedCallsWithoutRetry() + metrics.getFailedCallsWithRetry()).isZero();
	}

	@Test
	void eachDueAttemptRefusedByAHalfOpenCircuitIsARejectionAndWaitsARecheckQuietly() {
		instance(config -> { });
		tripCircuit();
		AtomicLong trial = new AtomicLong();
		this.time.schedule(() -> trial.set(this.breaker.acquirePermission()), 30, TimeUnit.SECONDS);
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 0));
		this.time.advance(Duration.ofSeconds(30));
		assertThat(trial.get()).isNotEqualTo(CircuitBreaker.NO_PERMISSION);
		assertThat(runs).hasValue(0);
		assertThat(this.template.getMetrics().getCircuitOpenRejections()).isEqualTo(2);
		assertThat(this.time.untilNextTask()).isEqualTo(Duration.ofSeconds(1));
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.template.getMetrics().getCircuitOpenRejections()).isEqualTo(3);
		assertThat(this.queued).containsExactly("k after 0");
		assertThat(events()).filteredOn(type -> type == RetryEventType.FAILBACK_SCHEDULED).hasSize(1);
		this.breaker.onSuccess(trial.get());
		this.time.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(1);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aTaskWaitingOnAForcedOpenCircuitResumesSoonAfterTheCircuitIsClosed() {
		instance(config -> { });
		this.breaker.forceOpen();
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 0));
		assertThat(this.time.untilNextTask()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.failback.pendingTasks()).singleElement()
			.satisfies(task -> assertThat(task.nextAttemptAt()).isEqualTo(task.submittedAt().plusSeconds(1)));
		this.time.advance(Duration.ofMinutes(10));
		assertThat(runs).hasValue(0);
		assertThat(this.template.getMetrics().getCircuitOpenRejections()).isEqualTo(1);
		assertThat(this.queued).containsExactly("k after 0");
		this.breaker.close();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(1);
		assertThat(this.failback.pendingCount()).isZero();
	}

	@Test
	void aTaskWaitsForTheEndOfTheOpenTimeoutWithoutCountingItsRechecks() {
		instance(config -> { });
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 1));
		assertThat(this.breaker.getRemainingOpenNanos()).isPositive();
		this.time.advance(Duration.ofSeconds(29));
		assertThat(runs).hasValue(1);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(2);
		RetryMetrics metrics = this.template.getMetrics();
		assertThat(metrics.getCircuitOpenRejections()).isZero();
		assertThat(metrics.getSuccessfulCallsWithRetry()).isEqualTo(1);
		assertThat(this.queued).containsExactly("k after 1");
	}

	@Test
	void aTaskRefusedUntilPastMaxDurationIsExhaustedWithoutWaiting() {
		instance(config -> config.maxDuration(Duration.ofSeconds(10)));
		tripCircuit();
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 0));
		assertThat(runs).hasValue(0);
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.failback.exhaustedTasks()).singleElement()
			.satisfies(task -> assertThat(task.lastErrorType()).isEqualTo(CircuitOpenException.class.getName()));
		RetryMetrics metrics = this.template.getMetrics();
		assertThat(metrics.getFailedCallsWithoutRetry()).isEqualTo(1);
		assertThat(metrics.getCircuitOpenRejections()).isEqualTo(1);
		assertThat(this.time.pendingTasks()).isZero();
	}

	@Test
	void aFailedTaskWhoseCircuitOpensPastMaxDurationIsExhaustedWithItsFailure() {
		instance(config -> config.maxDuration(Duration.ofSeconds(10)));
		AtomicInteger runs = new AtomicInteger();
		this.failback.submit("k", failing(runs, 99));
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.failback.exhaustedTasks()).singleElement().satisfies(task -> {
			assertThat(task.attempts()).isEqualTo(1);
			assertThat(task.lastErrorType()).isEqualTo(UncheckedIOException.class.getName());
		});
		assertThat(this.template.getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aTaskOnAForcedOpenCircuitIsExhaustedAtTheRecheckThatWouldPassMaxDuration() {
		instance(config -> config.maxDuration(Duration.ofSeconds(10)));
		this.breaker.forceOpen();
		this.failback.submit("k", failing(new AtomicInteger(), 0));
		this.time.advance(Duration.ofSeconds(8));
		assertThat(this.failback.pendingCount()).isEqualTo(1);
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.failback.pendingCount()).isZero();
		assertThat(this.failback.exhaustedCount()).isEqualTo(1);
		assertThat(this.time.pendingTasks()).isZero();
	}

}
