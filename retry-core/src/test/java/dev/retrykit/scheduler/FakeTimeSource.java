package dev.retrykit.scheduler;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.spi.TimeSource;

/** A thread-safe virtual clock for tests: time moves only when {@link #advance} is called. */
final class FakeTimeSource implements TimeSource {

	/** An arbitrary, non-zero origin, so that code never relies on nanoTime() starting at zero. */
	private static final long ORIGIN = 7_000_000_123L;

	private final AtomicLong nanos = new AtomicLong(ORIGIN);

	void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	void advanceMillis(long millis) {
		advance(Duration.ofMillis(millis));
	}

	/** @return the virtual time elapsed since this clock was created */
	Duration elapsed() {
		return Duration.ofNanos(this.nanos.get() - ORIGIN);
	}

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	@Override
	public long currentTimeMillis() {
		return this.nanos.get() / 1_000_000L;
	}

}
