package dev.retrykit.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import dev.retrykit.spi.ScheduledTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.entry;

/** Firing order and timing of the wheel, driven by hand in manual mode against a fake clock. */
class TimingWheelSchedulerTests {

	private final FakeTimeSource clock = new FakeTimeSource();

	/** Virtual time (ms since the clock's origin) at which each labelled task ran, in firing order. */
	private final Map<String, Long> firedAt = new LinkedHashMap<>();

	private TimingWheelScheduler manualWheel(int wheelSize) {
		return TimingWheelScheduler.builder().manual().tick(Duration.ofMillis(10)).wheelSize(wheelSize)
			.timeSource(this.clock).executor(Runnable::run).build();
	}

	private Runnable label(String name) {
		return () -> this.firedAt.put(name, this.clock.elapsed().toMillis());
	}

	private void stepTo(long millis, TimingWheelScheduler wheel) {
		while (this.clock.elapsed().toMillis() < millis) {
			this.clock.advanceMillis(1);
			wheel.runDueTasks();
		}
	}

	@Test
	void firesInDeadlineOrderAcrossRotationsWhenSteppedTickByTick() {
		TimingWheelScheduler wheel = manualWheel(8); // one rotation = 80 ms
		// 10, 90, 170 and 250 ms all hash to bucket 1, in rounds 0, 1, 2 and 3.
		wheel.schedule(label("r3"), 250, TimeUnit.MILLISECONDS);
		wheel.schedule(label("r0"), 10, TimeUnit.MILLISECONDS);
		wheel.schedule(label("r2"), 170, TimeUnit.MILLISECONDS);
		wheel.schedule(label("r1"), 90, TimeUnit.MILLISECONDS);
		wheel.schedule(label("short"), 35, TimeUnit.MILLISECONDS);
		wheel.schedule(label("long"), 10, TimeUnit.SECONDS);

		stepTo(300, wheel);

		assertThat(this.firedAt).containsExactly(Map.entry("r0", 10L), Map.entry("short", 40L),
				Map.entry("r1", 90L), Map.entry("r2", 170L), Map.entry("r3", 250L));
		assertThat(wheel.pendingCount()).isEqualTo(1);
		stepTo(10_000, wheel);
		assertThat(this.firedAt).containsEntry("long", 10_000L).hasSize(6);
	}

	@Test
	void firesInDeadlineOrderThenSchedulingOrderWhenCatchingUpInOneCall() {
		TimingWheelScheduler wheel = manualWheel(4);
		wheel.schedule(label("c"), 95, TimeUnit.MILLISECONDS);
		wheel.schedule(label("a1"), 15, TimeUnit.MILLISECONDS);
		wheel.schedule(label("b"), 55, TimeUnit.MILLISECONDS);
		wheel.schedule(label("a2"), 20, TimeUnit.MILLISECONDS);
		wheel.schedule(label("a3"), 11, TimeUnit.MILLISECONDS);

		this.clock.advanceMillis(1000);
		assertThat(wheel.runDueTasks()).isEqualTo(5);

		assertThat(this.firedAt.keySet()).containsExactly("a1", "a2", "a3", "b", "c");
		assertThat(wheel.firedCount()).isEqualTo(5);
		assertThat(wheel.pendingCount()).isZero();
	}

	@Test
	void neverFiresEarlyAndFiresOnTheFirstTickAtOrAfterTheDeadline() {
		TimingWheelScheduler wheel = manualWheel(16);
		Random random = new Random(42);
		Map<String, Long> deadlines = new LinkedHashMap<>();
		this.clock.advanceMillis(3); // schedule off a tick boundary
		for (int i = 0; i < 300; i++) {
			long delay = random.nextInt(2_000);
			deadlines.put("t" + i, 3 + delay);
			wheel.schedule(label("t" + i), delay, TimeUnit.MILLISECONDS);
		}

		stepTo(2_100, wheel);

		assertThat(this.firedAt).hasSize(300);
		deadlines.forEach((name, deadline) -> {
			long expectedTick = (deadline + 9) / 10 * 10;
			assertThat(this.firedAt.get(name)).as(name + " due at " + deadline).isEqualTo(expectedTick);
		});
	}

	@Test
	void bigJumpsInVirtualTimeFireEachTaskInTheFirstCallAtOrAfterItsDeadline() {
		TimingWheelScheduler wheel = manualWheel(8); // jumps of up to 5 rotations take the fast-forward path
		Random random = new Random(7);
		Map<String, Long> deadlines = new LinkedHashMap<>();
		for (int i = 0; i < 500; i++) {
			long delay = random.nextInt(20_000);
			deadlines.put("t" + i, delay);
			wheel.schedule(label("t" + i), delay, TimeUnit.MILLISECONDS);
		}
		List<Long> callTimes = new ArrayList<>();
		while (this.clock.elapsed().toMillis() < 21_000) {
			this.clock.advanceMillis(1 + random.nextInt(400));
			callTimes.add(this.clock.elapsed().toMillis());
			wheel.runDueTasks();
		}

		assertThat(this.firedAt).hasSize(500);
		deadlines.forEach((name, deadline) -> {
			long dueTick = (deadline + 9) / 10 * 10;
			long firstCallAfter = callTimes.stream().filter(time -> time >= dueTick).findFirst().orElseThrow();
			assertThat(this.firedAt.get(name)).as(name + " due at " + deadline).isEqualTo(firstCallAfter);
		});
		List<Long> firingOrderDeadlines = this.firedAt.keySet().stream().map(deadlines::get)
			.map(deadline -> (deadline + 9) / 10).toList();
		assertThat(firingOrderDeadlines).isSorted();
	}

	@Test
	void zeroOrNegativeDelayFiresOnTheNextTickNotInline() {
		TimingWheelScheduler wheel = manualWheel(8);
		this.clock.advanceMillis(3);
		wheel.schedule(label("zero"), 0, TimeUnit.MILLISECONDS);
		wheel.schedule(label("negative"), -5, TimeUnit.SECONDS);

		assertThat(wheel.runDueTasks()).isZero();
		stepTo(10, wheel);

		assertThat(this.firedAt).containsExactly(Map.entry("zero", 10L), Map.entry("negative", 10L));
	}

	@Test
	void taskScheduledByARunningTaskForANowPassedTimeFiresInTheSameCall() {
		TimingWheelScheduler wheel = manualWheel(8);
		wheel.schedule(() -> wheel.schedule(label("child"), 0, TimeUnit.MILLISECONDS), 10, TimeUnit.MILLISECONDS);

		this.clock.advanceMillis(50);

		assertThat(wheel.runDueTasks()).isEqualTo(2);
		assertThat(this.firedAt).containsExactly(Map.entry("child", 50L));
	}

	@Test
	void taskDueOnATickAlreadyProcessedFiresOnTheNextCallWithoutTheClockMoving() {
		TimingWheelScheduler wheel = manualWheel(8);
		this.clock.advanceMillis(20);
		assertThat(wheel.runDueTasks()).isZero(); // processes tick 2

		// Scheduled exactly on the boundary of tick 2, which has already been processed: it is due now,
		// and a frozen clock would never start tick 3.
		wheel.schedule(label("now"), 0, TimeUnit.MILLISECONDS);

		assertThat(wheel.runDueTasks()).isEqualTo(1);
		assertThat(this.firedAt).containsExactly(Map.entry("now", 20L));
		assertThat(wheel.pendingCount()).isZero();
	}

	@Test
	void taskReschedulingItselfWithNoDelayRunsOncePerCallInsteadOfLooping() {
		TimingWheelScheduler wheel = manualWheel(8);
		this.clock.advanceMillis(20);
		wheel.runDueTasks();
		List<Long> runs = new ArrayList<>();
		Runnable[] self = new Runnable[1];
		self[0] = () -> {
			runs.add(this.clock.elapsed().toMillis());
			wheel.schedule(self[0], 0, TimeUnit.MILLISECONDS);
		};
		wheel.schedule(self[0], 0, TimeUnit.MILLISECONDS);

		assertThat(wheel.runDueTasks()).isEqualTo(1);
		assertThat(wheel.runDueTasks()).isEqualTo(1);
		assertThat(runs).containsExactly(20L, 20L);
		assertThat(wheel.pendingCount()).isEqualTo(1);
	}

	@Test
	void massCancellationUnlinksTheNodesOnTheNextPassNotARotationLater() {
		TimingWheelScheduler wheel = manualWheel(8);
		List<ScheduledTask> handles = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			handles.add(wheel.schedule(label("t" + i), 1, TimeUnit.HOURS));
		}
		ScheduledTask kept = wheel.schedule(label("kept"), 1, TimeUnit.HOURS);
		wheel.runDueTasks();
		assertThat(wheel.linkedNodes()).isEqualTo(101);

		handles.subList(0, 40).forEach(ScheduledTask::cancel);
		wheel.runDueTasks();
		assertThat(wheel.linkedNodes()).as("fewer than half cancelled: left for the timer's pass").isEqualTo(101);

		handles.subList(40, 100).forEach(ScheduledTask::cancel);
		wheel.runDueTasks();
		assertThat(wheel.linkedNodes()).isEqualTo(1);
		assertThat(wheel.pendingCount()).isEqualTo(1);
		assertThat(kept.isCancelled()).isFalse();

		this.clock.advance(Duration.ofHours(1));
		wheel.runDueTasks();
		assertThat(this.firedAt).containsOnlyKeys("kept");
		assertThat(wheel.linkedNodes()).isZero();
	}

	@Test
	void aPurgeKeepsThePendingNodesBetweenCancelledOnesInOrderAndTheBucketsTailRight() {
		TimingWheelScheduler wheel = manualWheel(8);
		List<ScheduledTask> handles = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			handles.add(wheel.schedule(label("t" + i), 1, TimeUnit.HOURS));
		}
		wheel.runDueTasks();
		for (int i : new int[] { 0, 1, 3, 5, 8, 9 }) {
			handles.get(i).cancel();
		}
		wheel.runDueTasks();
		assertThat(wheel.linkedNodes()).as("purged: the head, a run and the tail were cancelled").isEqualTo(4);

		// Appended after the bucket's new tail, t7.
		wheel.schedule(label("late"), 1, TimeUnit.HOURS);
		this.clock.advance(Duration.ofHours(1));
		wheel.runDueTasks();
		assertThat(this.firedAt.keySet()).containsExactly("t2", "t4", "t6", "t7", "late");
		assertThat(wheel.linkedNodes()).isZero();
		assertThat(wheel.pendingCount()).isZero();
	}

	@Test
	void wheelOfOneBucketStillFiresEveryTaskOnTime() {
		TimingWheelScheduler wheel = manualWheel(1);
		wheel.schedule(label("b"), 30, TimeUnit.MILLISECONDS);
		wheel.schedule(label("a"), 10, TimeUnit.MILLISECONDS);

		stepTo(40, wheel);

		assertThat(this.firedAt).containsExactly(Map.entry("a", 10L), Map.entry("b", 30L));
	}

	@Test
	void hugeDelaySaturatesInsteadOfOverflowing() {
		TimingWheelScheduler wheel = manualWheel(8);
		ScheduledTask task = wheel.schedule(label("never"), Long.MAX_VALUE, TimeUnit.DAYS);

		this.clock.advance(Duration.ofDays(365));
		wheel.runDueTasks();

		assertThat(this.firedAt).isEmpty();
		assertThat(task.isExpired()).isFalse();
		assertThat(wheel.stop()).hasSize(1);
	}

	@Test
	void runDueTasksFromATaskItIsRunningIsRefused() {
		TimingWheelScheduler wheel = manualWheel(8);
		List<RuntimeException> failures = new ArrayList<>();
		wheel.schedule(() -> {
			try {
				wheel.runDueTasks();
			}
			catch (IllegalStateException ex) {
				failures.add(ex);
			}
		}, 10, TimeUnit.MILLISECONDS);

		stepTo(10, wheel);

		assertThat(failures).singleElement().extracting(Throwable::getMessage)
			.isEqualTo("runDueTasks() called from a task that it is running");
	}

	@Test
	void runDueTasksIsRefusedInThreadMode() {
		try (TimingWheelScheduler wheel = TimingWheelScheduler.builder().build()) {
			assertThatIllegalStateException().isThrownBy(wheel::runDueTasks)
				.withMessageContaining("manual mode");
		}
	}

}
