package dev.retrykit.scheduler;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.retrykit.spi.ScheduledTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The real timer thread: hand-off to the executor, lifecycle, and a million pending tasks. */
class TimingWheelSchedulerThreadTests {

	private static Set<Thread> liveThreads() {
		return new HashSet<>(Thread.getAllStackTraces().keySet());
	}

	private static List<Thread> threadsNamed(String name) {
		return liveThreads().stream().filter(thread -> thread.getName().equals(name)).toList();
	}

	@Test
	void userTasksRunOnTheExecutorNeverOnTheTimerThread() throws InterruptedException {
		String timerName = "retrykit-timer-handoff-test";
		AtomicReference<Thread> handedOverBy = new AtomicReference<>();
		AtomicReference<Thread> ranOn = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(1);
		try (TimingWheelScheduler wheel = TimingWheelScheduler.builder().tick(Duration.ofMillis(1))
			.threadName(timerName)
			.executor(command -> {
				handedOverBy.set(Thread.currentThread());
				ForkJoinPool.commonPool().execute(command);
			})
			.build()) {
			wheel.schedule(() -> {
				ranOn.set(Thread.currentThread());
				done.countDown();
			}, 0, TimeUnit.MILLISECONDS);

			assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(handedOverBy.get().getName()).isEqualTo(timerName);
		assertThat(handedOverBy.get().isDaemon()).isTrue();
		assertThat(ranOn.get()).isNotSameAs(handedOverBy.get()).isInstanceOf(ForkJoinWorkerThread.class);
	}

	@Test
	void defaultExecutorRunsTasksInTheCommonPool() throws InterruptedException {
		AtomicReference<Thread> ranOn = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(1);
		try (TimingWheelScheduler wheel = TimingWheelScheduler.builder().tick(Duration.ofMillis(1)).build()) {
			wheel.schedule(() -> {
				ranOn.set(Thread.currentThread());
				done.countDown();
			}, 2, TimeUnit.MILLISECONDS);
			assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(ranOn.get()).isInstanceOf(ForkJoinWorkerThread.class);
		assertThat(ranOn.get().getName()).doesNotContain("retrykit-timer");
	}

	@Test
	void threadStartsLazilyAndStopEndsItHandingBackPendingTasks() {
		String timerName = "retrykit-timer-lifecycle-test";
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().threadName(timerName).build();
		assertThat(threadsNamed(timerName)).isEmpty();
		Runnable pending = () -> { };

		wheel.schedule(pending, 1, TimeUnit.HOURS);
		List<Thread> timers = threadsNamed(timerName);
		assertThat(timers).singleElement().matches(Thread::isDaemon);

		assertThat(wheel.stop()).containsExactly(pending);
		assertThat(timers.get(0).isAlive()).isFalse();
		assertThat(wheel.pendingCount()).isZero();
		assertThat(wheel.toString()).contains("mode=thread", "state=stopped");
	}

	@Test
	void oneMillionPendingTasksUseOneThreadAndCancelCleanly() throws InterruptedException {
		String timerName = "retrykit-timer-million-test";
		int count = 1_000_000;
		FakeTimeSource clock = new FakeTimeSource();
		RecordingExecutor executor = new RecordingExecutor();
		AtomicInteger runs = new AtomicInteger();
		Runnable task = runs::incrementAndGet;
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		Set<Thread> before = liveThreads();
		long heapBefore = usedHeapAfterGc(memory);

		TimingWheelScheduler wheel = TimingWheelScheduler.builder().timeSource(clock).executor(executor)
			.threadName(timerName).build();
		ScheduledTask[] handles = new ScheduledTask[count];
		for (int i = 0; i < count; i++) {
			handles[i] = wheel.schedule(task, 1, TimeUnit.HOURS);
		}

		assertThat(wheel.pendingCount()).isEqualTo(count);
		long retained = usedHeapAfterGc(memory) - heapBefore;
		assertThat(retained).as("heap for %d pending tasks", count).isLessThan(96L * 1024 * 1024);
		Set<Thread> started = liveThreads();
		started.removeAll(before);
		// Other tests' pools (the common pool, the shared default wheel) may start threads meanwhile.
		started.removeIf(thread -> thread.getName().startsWith("ForkJoinPool")
				|| thread.getName().equals("retrykit-timer"));
		assertThat(started).extracting(Thread::getName).containsExactly(timerName);

		for (ScheduledTask handle : handles) {
			assertThat(handle.cancel()).isTrue();
		}
		assertThat(wheel.pendingCount()).isZero();
		assertThat(wheel.cancelledCount()).isEqualTo(count);

		clock.advance(Duration.ofHours(1).plusSeconds(1));
		CountDownLatch sentinel = new CountDownLatch(1);
		wheel.schedule(sentinel::countDown, 0, TimeUnit.MILLISECONDS);
		assertThat(sentinel.await(30, TimeUnit.SECONDS)).as("timer caught up past one hour").isTrue();

		assertThat(runs).hasValue(0);
		assertThat(executor.tasks()).hasSize(1);
		assertThat(executor.callers()).extracting(Thread::getName).containsExactly(timerName);
		assertThat(wheel.firedCount()).isEqualTo(1);
		assertThat(wheel.stop()).isEmpty();
	}

	/** The smallest of a few readings after a full GC: other threads' garbage only inflates a reading. */
	private static long usedHeapAfterGc(MemoryMXBean memory) {
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 3; i++) {
			System.gc();
			used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
		}
		return used;
	}

}
