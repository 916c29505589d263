package dev.retrykit.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import dev.retrykit.spi.ScheduledTask;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Many threads schedule and cancel while another drives the wheel: every task's fate is exact. */
class TimingWheelSchedulerConcurrencyTests {

	private static final int THREADS = 8;

	private static final int TASKS_PER_THREAD = 50_000;

	@ParameterizedTest(name = "manual mode: {0}")
	@ValueSource(booleans = { true, false })
	void concurrentScheduleAndCancelRunEveryUncancelledTaskExactlyOnce(boolean manual) throws InterruptedException {
		int total = THREADS * TASKS_PER_THREAD;
		FakeTimeSource clock = new FakeTimeSource();
		TimingWheelSchedulerBuilder builder = TimingWheelScheduler.builder().timeSource(clock)
			.tick(Duration.ofMillis(1)).wheelSize(64).executor(Runnable::run).threadName("retrykit-timer-stress");
		TimingWheelScheduler wheel = (manual ? builder.manual() : builder).build();
		AtomicIntegerArray runs = new AtomicIntegerArray(total);
		AtomicIntegerArray cancelled = new AtomicIntegerArray(total);
		CountDownLatch start = new CountDownLatch(1);
		CountDownLatch finished = new CountDownLatch(THREADS);
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			int first = t * TASKS_PER_THREAD;
			Thread thread = new Thread(() -> {
				awaitUninterruptibly(start);
				scheduleAndCancel(wheel, clock, first, runs, cancelled);
				finished.countDown();
			}, "scheduler-" + t);
			threads.add(thread);
			thread.start();
		}

		start.countDown();
		if (manual) {
			while (finished.getCount() > 0) {
				wheel.runDueTasks(); // fires tasks while they are being scheduled and cancelled
			}
		}
		assertThat(finished.await(60, TimeUnit.SECONDS)).isTrue();
		for (Thread thread : threads) {
			thread.join();
		}
		clock.advance(Duration.ofSeconds(1));
		drainEverythingDue(wheel, manual);

		int cancelledCount = 0;
		for (int id = 0; id < total; id++) {
			boolean wasCancelled = cancelled.get(id) == 1;
			cancelledCount += wasCancelled ? 1 : 0;
			assertThat(runs.get(id)).as("runs of task %d (cancelled: %s)", id, wasCancelled)
				.isEqualTo(wasCancelled ? 0 : 1);
		}
		assertThat(cancelledCount).isBetween(total / 4, total * 3 / 4);
		assertThat(wheel.cancelledCount()).isEqualTo(cancelledCount);
		assertThat(wheel.firedCount()).isEqualTo(total - cancelledCount + (manual ? 0 : 1));
		assertThat(wheel.pendingCount()).isZero();
		assertThat(wheel.rejectedCount()).isZero();
		assertThat(wheel.stop()).isEmpty();
	}

	/**
	 * Fires every task due by now. The timer thread processes ticks in order and this executor runs
	 * tasks inline, so once a sentinel due now has run, every earlier task has run too.
	 */
	private static void drainEverythingDue(TimingWheelScheduler wheel, boolean manual) throws InterruptedException {
		if (manual) {
			wheel.runDueTasks();
			return;
		}
		CountDownLatch sentinel = new CountDownLatch(1);
		wheel.schedule(sentinel::countDown, 0, TimeUnit.MILLISECONDS);
		assertThat(sentinel.await(30, TimeUnit.SECONDS)).as("timer thread caught up").isTrue();
	}

	/**
	 * Schedules tasks with random delays and cancels a random half, recording which cancels won. Moves
	 * virtual time on by 1 ms every 250 tasks, so tasks fall due while others are being scheduled.
	 */
	private static void scheduleAndCancel(TimingWheelScheduler wheel, FakeTimeSource clock, int first,
			AtomicIntegerArray runs, AtomicIntegerArray cancelled) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		for (int id = first; id < first + TASKS_PER_THREAD; id++) {
			if (id % 250 == 0) {
				clock.advanceMillis(1);
			}
			int taskId = id;
			ScheduledTask handle = wheel.schedule(() -> runs.incrementAndGet(taskId), random.nextInt(100),
					TimeUnit.MILLISECONDS);
			// A cancel that loses the race with firing returns false: then the task must have run.
			if (random.nextBoolean() && handle.cancel()) {
				cancelled.set(id, 1);
			}
		}
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
