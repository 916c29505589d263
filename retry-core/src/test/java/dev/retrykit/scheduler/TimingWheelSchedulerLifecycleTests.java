package dev.retrykit.scheduler;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.spi.ScheduledTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Cancelling, stopping and executor rejections, in manual mode against a fake clock. */
class TimingWheelSchedulerLifecycleTests {

	private final FakeTimeSource clock = new FakeTimeSource();

	private final AtomicInteger runs = new AtomicInteger();

	private final Runnable counting = this.runs::incrementAndGet;

	private TimingWheelScheduler manualWheel() {
		return TimingWheelScheduler.builder().manual().tick(Duration.ofMillis(10)).wheelSize(8)
			.timeSource(this.clock).executor(Runnable::run).build();
	}

	private void advance(TimingWheelScheduler wheel, long millis) {
		this.clock.advanceMillis(millis);
		wheel.runDueTasks();
	}

	@Test
	void cancelledTaskNeverRunsAndIsCountedOnce() {
		TimingWheelScheduler wheel = manualWheel();
		ScheduledTask task = wheel.schedule(this.counting, 20, TimeUnit.MILLISECONDS);
		advance(wheel, 10); // the node now sits in its bucket

		assertThat(task.cancel()).isTrue();
		assertThat(task.cancel()).isFalse();
		advance(wheel, 1_000);

		assertThat(this.runs).hasValue(0);
		assertThat(task.isCancelled()).isTrue();
		assertThat(task.isExpired()).isFalse();
		assertThat(wheel.pendingCount()).isZero();
		assertThat(wheel.cancelledCount()).isEqualTo(1);
		assertThat(wheel.firedCount()).isZero();
	}

	@Test
	void cancelReleasesTheTaskAtOnceWhileTheNodeIsStillLinked() {
		TimingWheelScheduler wheel = manualWheel();
		List<WeakReference<Runnable>> refs = new ArrayList<>();
		ScheduledTask inBucket = scheduleUnreferenced(wheel, refs);
		advance(wheel, 10); // moves the node from the incoming stack into its bucket
		ScheduledTask inStack = scheduleUnreferenced(wheel, refs);
		ScheduledTask kept = scheduleUnreferenced(wheel, refs);

		assertThat(inBucket.cancel()).isTrue();
		assertThat(inStack.cancel()).isTrue();

		assertThat(collected(refs.get(0))).as("cancelled task in a bucket released").isTrue();
		assertThat(collected(refs.get(1))).as("cancelled task in the incoming stack released").isTrue();
		assertThat(refs.get(2).get()).as("a pending task is still held by its node").isNotNull();
		assertThat(kept.isCancelled()).isFalse();
		assertThat(wheel.pendingCount()).isEqualTo(1);
	}

	/** Schedules a task whose only strong reference is the scheduler's node. */
	private ScheduledTask scheduleUnreferenced(TimingWheelScheduler wheel, List<WeakReference<Runnable>> refs) {
		Runnable task = new CountingTask(this.runs);
		refs.add(new WeakReference<>(task));
		return wheel.schedule(task, 1, TimeUnit.HOURS);
	}

	private static boolean collected(WeakReference<?> ref) {
		for (int i = 0; i < 50 && ref.get() != null; i++) {
			System.gc();
		}
		return ref.get() == null;
	}

	@Test
	void cancelAfterFiringReturnsFalse() {
		TimingWheelScheduler wheel = manualWheel();
		ScheduledTask task = wheel.schedule(this.counting, 10, TimeUnit.MILLISECONDS);
		advance(wheel, 10);

		assertThat(task.cancel()).isFalse();
		assertThat(task.isExpired()).isTrue();
		assertThat(task.isCancelled()).isFalse();
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void stopReturnsExactlyTheUnfiredUncancelledTasksByDeadline() {
		TimingWheelScheduler wheel = manualWheel();
		Runnable a = new CountingTask(this.runs);
		Runnable b = new CountingTask(this.runs);
		Runnable c = new CountingTask(this.runs);
		Runnable d = new CountingTask(this.runs);
		Runnable e = new CountingTask(this.runs);
		wheel.schedule(a, 10, TimeUnit.MILLISECONDS);
		ScheduledTask bHandle = wheel.schedule(b, 20, TimeUnit.MILLISECONDS);
		ScheduledTask dHandle = wheel.schedule(d, 1, TimeUnit.HOURS);
		wheel.schedule(c, 30, TimeUnit.MILLISECONDS);
		bHandle.cancel();
		advance(wheel, 15);
		wheel.schedule(e, 5, TimeUnit.MILLISECONDS); // still in the incoming stack at stop

		List<Runnable> left = wheel.stop();

		assertThat(left).containsExactly(e, c, d);
		assertThat(this.runs).hasValue(1);
		assertThat(wheel.pendingCount()).isZero();
		assertThat(dHandle.cancel()).isFalse();
		assertThat(dHandle.isCancelled()).isFalse();
		assertThat(dHandle.isExpired()).isFalse();
		assertThat(wheel.stop()).isEmpty();
		wheel.close();
		advance(wheel, 10_000);
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void scheduleAfterStopIsRejectedWithAClearMessage() {
		TimingWheelScheduler wheel = manualWheel();
		wheel.close();

		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> wheel.schedule(this.counting, 1, TimeUnit.SECONDS))
			.withMessage("TimingWheelScheduler has been stopped; it accepts no new tasks");
		assertThat(wheel.isStopped()).isTrue();
		assertThat(wheel.pendingCount()).isZero();
	}

	@Test
	void stopCalledFromARunningTaskHandsBackTheRestOfTheTick() {
		TimingWheelScheduler wheel = manualWheel();
		List<Runnable> handedBack = new ArrayList<>();
		Runnable second = new CountingTask(this.runs);
		Runnable later = new CountingTask(this.runs);
		wheel.schedule(() -> handedBack.addAll(wheel.stop()), 10, TimeUnit.MILLISECONDS);
		wheel.schedule(second, 10, TimeUnit.MILLISECONDS);
		wheel.schedule(later, 20, TimeUnit.MILLISECONDS);

		this.clock.advanceMillis(100);
		assertThat(wheel.runDueTasks()).isEqualTo(1);

		assertThat(handedBack).containsExactly(second, later);
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void executorRejectionIsCountedAndReportedNeverDropped() {
		List<Runnable> rejectedTasks = new ArrayList<>();
		List<RejectedExecutionException> causes = new ArrayList<>();
		AtomicInteger calls = new AtomicInteger();
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().timeSource(this.clock)
			.executor(command -> {
				switch (calls.incrementAndGet()) {
					case 1 -> throw new RejectedExecutionException("saturated");
					case 2 -> throw new IllegalStateException("shut down");
					default -> command.run();
				}
			})
			.rejectionHandler((task, cause) -> {
				rejectedTasks.add(task);
				causes.add(cause);
				if (causes.size() == 2) {
					throw new IllegalArgumentException("a faulty handler must not stop the timer");
				}
			})
			.build();
		Runnable first = new CountingTask(this.runs);
		Runnable second = new CountingTask(this.runs);
		ScheduledTask firstHandle = wheel.schedule(first, 10, TimeUnit.MILLISECONDS);
		wheel.schedule(second, 20, TimeUnit.MILLISECONDS);
		wheel.schedule(this.counting, 30, TimeUnit.MILLISECONDS);

		advance(wheel, 100);

		assertThat(rejectedTasks).containsExactly(first, second);
		assertThat(causes.get(0)).hasMessage("saturated");
		assertThat(causes.get(1)).isInstanceOf(RejectedExecutionException.class)
			.hasCauseInstanceOf(IllegalStateException.class);
		assertThat(wheel.rejectedCount()).isEqualTo(2);
		assertThat(wheel.firedCount()).isEqualTo(3);
		assertThat(firstHandle.isExpired()).isTrue();
		assertThat(this.runs).hasValue(1);
		assertThat(wheel).hasToString("TimingWheelScheduler[tick=PT0.01S, wheelSize=512, mode=manual, "
				+ "state=new, pending=0, fired=3, cancelled=0, rejected=2]");
	}

	/** A task with its own identity, so that tests can tell tasks apart and watch them be collected. */
	private static final class CountingTask implements Runnable {

		private final AtomicInteger runs;

		CountingTask(AtomicInteger runs) {
			this.runs = runs;
		}

		@Override
		public void run() {
			this.runs.incrementAndGet();
		}

	}

}
