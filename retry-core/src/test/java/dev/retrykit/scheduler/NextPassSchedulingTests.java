package dev.retrykit.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tasks whose delay counts from the timer's next pass (how the async engine schedules a retry on the
 * system clock without reading it): the pass reads the clock once, after the tasks were pushed, and
 * fixes each deadline from that reading, so a task is never due before its delay; a task cancelled
 * before the pass stays cancelled.
 */
class NextPassSchedulingTests {

	private static final long TICK = Duration.ofMillis(10).toNanos();

	private final FakeTimeSource time = new FakeTimeSource();

	private final TimingWheelScheduler owner = TimingWheelScheduler.builder().manual().timeSource(this.time)
		.tick(Duration.ofMillis(10)).build();

	private final TickClock clock = new TickClock(this.time, TICK);

	private final IncomingStack incoming = new IncomingStack(this.owner, this.clock);

	@Test
	void thePassCountsEachDelayFromItsOwnClockReadingTakenAfterThePush() {
		WheelTimeout first = WheelTimeout.fromNextPass(this.owner, () -> {
		}, Duration.ofMillis(50).toNanos());
		WheelTimeout second = WheelTimeout.fromNextPass(this.owner, () -> {
		}, Duration.ofMillis(1).toNanos());
		this.incoming.push(first);
		this.incoming.push(second);
		this.time.advance(Duration.ofMillis(7));

		List<WheelTimeout> taken = chain(this.incoming.takeAll());

		assertThat(taken).containsExactly(first, second);
		// 7 ms + 50 ms = 57 ms: the first tick at or after it is tick 6 (60 ms); 7 + 1 = 8 ms: tick 1.
		assertThat(first.deadlineTick()).isEqualTo(6);
		assertThat(second.deadlineTick()).isEqualTo(1);
		assertThat(first.isFromNextPass()).isFalse();
		assertThat(first.isPending()).isTrue();
	}

	@Test
	void aTaskCancelledBeforeThePassStaysCancelledAndItsTaskIsReleased() {
		WheelTimeout node = WheelTimeout.fromNextPass(this.owner, () -> {
		}, Duration.ofMillis(50).toNanos());
		this.incoming.push(node);

		assertThat(node.cancel()).isTrue();
		this.incoming.takeAll();

		assertThat(node.isCancelled()).isTrue();
		assertThat(node.isPending()).isFalse();
		assertThat(node.deadlineTick()).isEqualTo(5);
		assertThat(node.claim(WheelTimeout.EXPIRED)).as("nothing left to run").isNull();
	}

	@Test
	void aHugeDelaySaturatesInsteadOfWrapping() {
		WheelTimeout node = WheelTimeout.fromNextPass(this.owner, () -> {
		}, Long.MAX_VALUE);
		this.incoming.push(node);

		this.incoming.takeAll();

		assertThat(node.deadlineTick()).isGreaterThan(Duration.ofDays(365 * 30).toNanos() / TICK);
		assertThat(node.isPending()).isTrue();
	}

	@Test
	void onAVirtualClockTheEngineSchedulesFromTheCallersTimeNotThePass() {
		TimingWheelScheduler wheel = TimingWheelScheduler.builder().manual().timeSource(this.time)
			.tick(Duration.ofMillis(10)).executor(Runnable::run).build();
		List<String> ran = new ArrayList<>();
		wheel.scheduleFromNextPass(() -> ran.add("retry"),
				Duration.ofMillis(50).toNanos());

		this.time.advance(Duration.ofMillis(50));
		wheel.runDueTasks();

		assertThat(ran).containsExactly("retry");
	}

	private static List<WheelTimeout> chain(WheelTimeout head) {
		List<WheelTimeout> nodes = new ArrayList<>();
		for (WheelTimeout node = head; node != null; node = node.next) {
			nodes.add(node);
		}
		return nodes;
	}

}
