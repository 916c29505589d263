package dev.retrykit.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coarse clock that stamps events on the system time source: an idle clock reads the source and
 * starts its ticker, a ticking one answers the time of its last tick, and the ticker ends once the
 * clock goes unread. Driven tick by tick here; the last test runs the real thread.
 */
class CoarseClockTests {

	private final AtomicLong source = new AtomicLong(1_000_000_000L);

	private final List<Runnable> started = new ArrayList<>();

	private final CoarseClock clock = new CoarseClock(this.source::get, this.started::add, 3);

	@Test
	void anIdleClockReadsTheSourceAndStartsOneTicker() {
		this.source.set(2_000_000_000L);

		assertThat(this.clock.nanoTime()).isEqualTo(2_000_000_000L);
		assertThat(this.clock.isTicking()).isTrue();
		this.source.set(2_000_500_000L);
		assertThat(this.clock.nanoTime()).as("the time of the last tick, not the source's").isEqualTo(2_000_000_000L);
		assertThat(this.started).hasSize(1);
	}

	@Test
	void eachTickStoresTheSourcesTime() {
		this.clock.nanoTime();
		this.source.addAndGet(CoarseClock.TICK_NANOS);

		assertThat(this.clock.tick()).isTrue();
		assertThat(this.clock.nanoTime()).isEqualTo(this.source.get());
	}

	@Test
	void theTickerEndsAfterItsIdleTicksUnreadAndTheNextReadingStartsAnother() {
		this.clock.nanoTime();
		assertThat(this.clock.tick()).as("read since the start").isTrue();
		assertThat(this.clock.tick()).isTrue();
		assertThat(this.clock.tick()).isTrue();
		assertThat(this.clock.tick()).as("third tick unread").isFalse();
		assertThat(this.clock.isTicking()).isFalse();

		this.source.addAndGet(7_000_000L);
		assertThat(this.clock.nanoTime()).as("an idle clock is exact").isEqualTo(this.source.get());
		assertThat(this.started).hasSize(2);
	}

	@Test
	void aReadingBetweenTicksKeepsTheTickerGoing() {
		this.clock.nanoTime();
		for (int i = 0; i < 20; i++) {
			assertThat(this.clock.tick()).isTrue();
			if (i % 2 == 0) {
				this.clock.nanoTime();
			}
		}
		assertThat(this.started).hasSize(1);
	}

	@Test
	void theStoredTimeNeverMovesBack() {
		this.clock.nanoTime();
		this.source.addAndGet(5_000_000L);
		this.clock.tick();
		long stored = this.clock.nanoTime();
		this.source.addAndGet(-1_000_000L);

		this.clock.tick();

		assertThat(this.clock.nanoTime()).isEqualTo(stored);
	}

	@Test
	void aClockWhoseTickerCannotStartStaysExact() {
		CoarseClock exact = new CoarseClock(this.source::get, loop -> {
			throw new OutOfMemoryError("unable to create native thread");
		}, 3);

		assertThat(exact.nanoTime()).isEqualTo(this.source.get());
		this.source.addAndGet(123);
		assertThat(exact.nanoTime()).isEqualTo(this.source.get());
		assertThat(exact.isTicking()).isFalse();
	}

	@Test
	void theRealTickerThreadEndsByItselfWhenTheClockGoesUnread() {
		List<Thread> threads = new ArrayList<>();
		CoarseClock real = new CoarseClock(System::nanoTime, loop -> {
			Thread thread = new Thread(loop, "coarse-clock-test");
			thread.setDaemon(true);
			threads.add(thread);
			thread.start();
		}, 3);
		long before = System.nanoTime();

		long reading = real.nanoTime();

		assertThat(reading).isBetween(before, System.nanoTime());
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (threads.get(0).isAlive() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(threads.get(0).isAlive()).as("the ticker ends three unread ticks after the reading").isFalse();
		assertThat(real.isTicking()).isFalse();
		assertThat(real.nanoTime()).isGreaterThanOrEqualTo(reading);
	}

}
