package dev.retrykit.scheduler;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.spi.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An {@link Error} out of the executor, out of a task run inline, or out of the timer's own pass: the
 * wheel contains it and keeps firing; when it truly cannot go on, it says so and rejects new work.
 * The timer thread runs against a frozen fake clock (it fires due tasks on each pass); the tests wait
 * on latches, bounded in time, and never sleep.
 */
class TimingWheelSchedulerErrorTests {

	private final FakeTimeSource clock = new FakeTimeSource();

	private final List<Runnable> rejectedTasks = new CopyOnWriteArrayList<>();

	private final List<RejectedExecutionException> causes = new CopyOnWriteArrayList<>();

	private final CountDownLatch rejection = new CountDownLatch(1);

	private final RejectedTaskHandler recordingHandler = (task, cause) -> {
		this.rejectedTasks.add(task);
		this.causes.add(cause);
		this.rejection.countDown();
	};

	@Test
	void errorFromExecuteIsContainedReportedAndTheTimerThreadKeepsFiring() throws InterruptedException {
		AtomicInteger calls = new AtomicInteger();
		try (TimingWheelScheduler wheel = TimingWheelScheduler.builder().tick(Duration.ofMillis(1))
			.timeSource(this.clock)
			.threadName("retrykit-timer-execute-error-test")
			.executor(command -> {
				if (calls.incrementAndGet() == 1) {
					throw new OutOfMemoryError("unable to create native thread");
				}
				command.run();
			})
			.rejectionHandler(this.recordingHandler)
			.build()) {
			Runnable refused = () -> { };
			wheel.schedule(refused, 0, TimeUnit.MILLISECONDS);
			assertThat(this.rejection.await(10, TimeUnit.SECONDS)).as("the refused task was reported").isTrue();

			CountDownLatch later = new CountDownLatch(1);
			wheel.schedule(later::countDown, 0, TimeUnit.MILLISECONDS);

			assertThat(later.await(10, TimeUnit.SECONDS)).as("a later task still fires").isTrue();
			assertThat(this.rejectedTasks).containsExactly(refused);
			assertThat(this.causes.get(0)).hasCauseInstanceOf(OutOfMemoryError.class)
				.hasMessageContaining("unable to create native thread");
			assertThat(wheel.rejectedCount()).isEqualTo(1);
			assertThat(wheel.isStopped()).isFalse();
		}
	}

	@Test
	void errorThrownByATaskOnAnInlineExecutorIsContainedAndLaterTasksStillFire() throws InterruptedException {
		try (TimingWheelScheduler wheel = TimingWheelScheduler.builder().tick(Duration.ofMillis(1))
			.timeSource(this.clock)
			.threadName("retrykit-timer-inline-error-test")
			.executor(Runnable::run)
			.rejectionHandler(this.recordingHandler)
			.build()) {
			Runnable failing = () -> {
				throw new StackOverflowError("thrown by the task");
			};
			wheel.schedule(failing, 0, TimeUnit.MILLISECONDS);
			assertThat(this.rejection.await(10, TimeUnit.SECONDS)).isTrue();

			CountDownLatch later = new CountDownLatch(1);
			wheel.schedule(later::countDown, 0, TimeUnit.MILLISECONDS);

			assertThat(later.await(10, TimeUnit.SECONDS)).as("a later task still fires").isTrue();
			assertThat(this.rejectedTasks).containsExactly(failing);
			assertThat(this.causes.get(0)).hasCauseInstanceOf(StackOverflowError.class);
			assertThat(wheel.firedCount()).isEqualTo(2);
			assertThat(wheel.rejectedCount()).isEqualTo(1);
		}
	}

	@Test
	void inManualModeAnErrorFromATaskDoesNotEscapeRunDueTasksNorStopTheOtherDueTasks() {
		AtomicInteger runs = new AtomicInteger();
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().timeSource(this.clock)
			.executor(Runnable::run).rejectionHandler(this.recordingHandler).build();
		Runnable failing = () -> {
			throw new AssertionError("thrown by the task");
		};
		wheel.schedule(failing, 10, TimeUnit.MILLISECONDS);
		wheel.schedule(runs::incrementAndGet, 10, TimeUnit.MILLISECONDS);
		this.clock.advanceMillis(20);

		assertThat(wheel.runDueTasks()).isEqualTo(2);

		assertThat(runs).hasValue(1);
		assertThat(this.rejectedTasks).containsExactly(failing);
		assertThat(wheel.rejectedCount()).isEqualTo(1);
		assertThat(wheel.pendingCount()).isZero();
	}

	@Test
	void errorFromTheRejectionHandlerIsContainedToo() {
		AtomicInteger runs = new AtomicInteger();
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().timeSource(this.clock)
			.executor(command -> {
				throw new RejectedExecutionException("saturated");
			})
			.rejectionHandler((task, cause) -> {
				runs.incrementAndGet();
				throw new OutOfMemoryError("in the handler");
			})
			.build();
		wheel.schedule(() -> { }, 10, TimeUnit.MILLISECONDS);
		wheel.schedule(() -> { }, 10, TimeUnit.MILLISECONDS);
		this.clock.advanceMillis(20);

		assertThat(wheel.runDueTasks()).isEqualTo(2);
		assertThat(runs).hasValue(2);
		assertThat(wheel.rejectedCount()).isEqualTo(2);
	}

	@Test
	void timerThreadThatCannotStartLeavesTheSchedulerStoppedAndRejectingWithTheCause() {
		TimingWheelSchedulerBuilder builder = TimingWheelScheduler.builder().timeSource(this.clock);
		builder.threadFactory = task -> new Thread(task) {
			@Override
			public synchronized void start() {
				throw new OutOfMemoryError("unable to create native thread");
			}
		};
		TimingWheelScheduler wheel = builder.build();

		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> wheel.schedule(() -> { }, 1, TimeUnit.SECONDS))
			.withMessageContaining("timer thread")
			.withCauseInstanceOf(OutOfMemoryError.class);
		assertThat(wheel.isStopped()).isTrue();
		assertThat(wheel.pendingCount()).isZero();
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> wheel.schedule(() -> { }, 1, TimeUnit.SECONDS))
			.withMessageContaining("unable to create native thread")
			.withCauseInstanceOf(OutOfMemoryError.class);
		assertThat(wheel.toString()).contains("state=failed");
		assertThat(wheel.stop()).isEmpty();
	}

	@Test
	void timerThreadThatCannotKeepTickingStopsRejectsNewWorkAndHandsPendingTasksToTheHandler()
			throws InterruptedException {
		AtomicBoolean broken = new AtomicBoolean();
		TimeSource breakable = new TimeSource() {
			@Override
			public long nanoTime() {
				if (broken.get()) {
					throw new InternalError("clock is broken");
				}
				return TimingWheelSchedulerErrorTests.this.clock.nanoTime();
			}

			@Override
			public long currentTimeMillis() {
				return TimingWheelSchedulerErrorTests.this.clock.currentTimeMillis();
			}
		};
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().tick(Duration.ofMillis(1)).timeSource(breakable)
			.threadName("retrykit-timer-broken-clock-test").rejectionHandler(this.recordingHandler).build();
		Runnable pending = () -> { };
		wheel.schedule(pending, 1, TimeUnit.HOURS);
		broken.set(true);

		assertThat(this.rejection.await(30, TimeUnit.SECONDS)).as("the pending task was handed back").isTrue();

		assertThat(this.rejectedTasks).containsExactly(pending);
		assertThat(this.causes.get(0)).hasMessageContaining("timer thread").hasCauseInstanceOf(InternalError.class);
		assertThat(wheel.isStopped()).isTrue();
		assertThat(wheel.timerFailureCount()).isEqualTo(TimerThreadLoop.MAX_CONSECUTIVE_FAILURES);
		assertThat(wheel.pendingCount()).isZero();
		broken.set(false);
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> wheel.schedule(() -> { }, 0, TimeUnit.MILLISECONDS))
			.withMessageContaining("clock is broken");
	}

}
