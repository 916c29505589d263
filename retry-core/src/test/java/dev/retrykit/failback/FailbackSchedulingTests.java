package dev.retrykit.failback;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplateCustomizer;
import dev.retrykit.VirtualTime;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.spi.BackoffStrategy;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.ScheduledTask;
import dev.retrykit.spi.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failback with a scheduler that runs a retry due now before {@code schedule} returns, as an executor
 * thread of the timing wheel may: the retry must find its task pending, and its own schedule must win.
 */
class FailbackSchedulingTests {

	private final VirtualTime time = new VirtualTime();

	/** Schedules on the virtual clock and, for a zero delay, runs the task before returning. */
	private final RetryScheduler eager = (task, delay, unit) -> {
		ScheduledTask handle = this.time.schedule(task, delay, unit);
		if (delay == 0) {
			this.time.runDueTasks();
		}
		return handle;
	};

	private FailbackExecutor failback(BackoffStrategy backoff) {
		return RetryRegistry.builder().virtualTime(this.time).scheduler(this.eager)
			.instance("eager", null, config -> config.maxAttempts(5).backoff(backoff))
			.build()
			.failback("eager");
	}

	private static Runnable failing(AtomicInteger runs, int failures) {
		return () -> {
			if (runs.incrementAndGet() <= failures) {
				throw new UncheckedIOException(new IOException("down " + runs.get()));
			}
		};
	}

	@Test
	void retriesWaitOnTheSchedulerACustomizerGaveTheInstance() {
		VirtualTime customized = new VirtualTime();
		FailbackExecutor failback = RetryRegistry.builder().virtualTime(this.time)
			.instance("audit", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
			.customizer(RetryTemplateCustomizer.forInstance("audit", builder -> builder.scheduler(customized)))
			.build()
			.failback("audit");
		AtomicInteger runs = new AtomicInteger();
		failback.submit("k", failing(runs, 1));
		assertThat(this.time.pendingTasks()).isZero();
		assertThat(customized.pendingTasks()).isOne();
		customized.advance(Duration.ofSeconds(1));
		assertThat(runs).hasValue(2);
		assertThat(failback.pendingCount()).isZero();
	}

	@Test
	void aRetryThatSucceedsBeforeTheSchedulerReturnsLeavesNothingPending() {
		FailbackExecutor failback = failback(BackoffPolicy.none());
		AtomicInteger runs = new AtomicInteger();
		assertThat(failback.submit("k", failing(runs, 1))).isFalse();
		assertThat(runs).hasValue(2);
		assertThat(failback.pendingCount()).isZero();
		assertThat(failback.pendingTasks()).isEmpty();
	}

	@Test
	void aRetryThatIsExhaustedBeforeTheSchedulerReturnsLeavesNothingPending() {
		FailbackExecutor failback = failback(BackoffPolicy.none());
		AtomicInteger runs = new AtomicInteger();
		failback.submit("k", failing(runs, 99));
		assertThat(runs).hasValue(5);
		assertThat(failback.pendingCount()).isZero();
		assertThat(failback.exhaustedCount()).isEqualTo(1);
	}

	@Test
	void aTaskWhoseRetryTheSchedulerRefusesIsExhaustedAndCountedAsFailed() {
		RetryRegistry registry = RetryRegistry.builder().virtualTime(this.time).build();
		FailbackExecutor failback = registry.failback("audit");
		this.time.stop();
		failback.submit("k", failing(new AtomicInteger(), 99));
		assertThat(failback.pendingCount()).isZero();
		assertThat(failback.exhaustedTasks()).singleElement()
			.satisfies(task -> assertThat(task.nextAttemptAt()).isNull());
		assertThat(registry.template("audit").getMetrics().getFailedCallsWithoutRetry()).isEqualTo(1);
	}

	@Test
	void aTaskWhoseDueRetryTheExecutorRefusesIsExhausted() {
		FakeClock clock = new FakeClock();
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().tick(Duration.ofMillis(10)).wheelSize(8)
			.timeSource(clock).executor(task -> {
				throw new RejectedExecutionException("pool saturated");
			}).build();
		FailbackExecutor failback = RetryRegistry.builder()
			.instance("audit", null, config -> config.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))))
			.customizer(RetryTemplateCustomizer.forInstance("audit", builder -> builder.timeSource(clock).scheduler(wheel)))
			.build()
			.failback("audit");
		failback.submit("k", failing(new AtomicInteger(), 99));
		assertThat(failback.pendingCount()).isOne();

		clock.nanos += Duration.ofSeconds(2).toNanos();
		wheel.runDueTasks();

		assertThat(wheel.rejectedCount()).isOne();
		assertThat(failback.pendingCount()).isZero();
		assertThat(failback.exhaustedCount()).isOne();
		assertThat(failback.exhaustedTasks()).singleElement()
			.satisfies(task -> assertThat(task.nextAttemptAt()).isNull());
	}

	/** A clock that moves only when told. */
	private static final class FakeClock implements TimeSource {

		long nanos = 1_000_000_000L;

		@Override
		public long nanoTime() {
			return this.nanos;
		}

		@Override
		public long currentTimeMillis() {
			return this.nanos / 1_000_000L;
		}

	}

	@Test
	void cancelStopsTheRetryScheduledByARetryThatRanBeforeTheSchedulerReturned() {
		BackoffStrategy atOnceThenOneSecond = () -> (retry, previous) -> (retry == 1) ? 0
				: Duration.ofSeconds(1).toNanos();
		FailbackExecutor failback = failback(atOnceThenOneSecond);
		AtomicInteger runs = new AtomicInteger();
		failback.submit("k", failing(runs, 99));
		assertThat(runs).hasValue(2);
		assertThat(failback.pendingCount()).isEqualTo(1);
		assertThat(this.time.pendingTasks()).isEqualTo(1);
		assertThat(failback.cancel("k")).isTrue();
		assertThat(this.time.pendingTasks()).isZero();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(runs).hasValue(2);
	}

	@Test
	void retryAllNowReachesTheRetryScheduledByARetryThatRanBeforeTheSchedulerReturned() {
		BackoffStrategy atOnceThenOneSecond = () -> (retry, previous) -> (retry == 1) ? 0
				: Duration.ofSeconds(1).toNanos();
		FailbackExecutor failback = failback(atOnceThenOneSecond);
		AtomicInteger runs = new AtomicInteger();
		failback.submit("k", failing(runs, 2));
		assertThat(failback.retryAllNow()).isEqualTo(1);
		assertThat(runs).hasValue(3);
		assertThat(failback.pendingCount()).isZero();
	}

}
