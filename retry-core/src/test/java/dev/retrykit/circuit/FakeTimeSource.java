package dev.retrykit.circuit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.spi.TimeSource;

/**
 * A clock that moves only when told to. Its monotonic time starts just below {@code Long.MAX_VALUE}
 * so that every test also proves the breaker's arithmetic survives {@code nanoTime} wrapping.
 */
final class FakeTimeSource implements TimeSource {

	static final long ORIGIN = Long.MAX_VALUE - Duration.ofSeconds(30).toNanos();

	private final AtomicLong nanos = new AtomicLong(ORIGIN);

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	@Override
	public long currentTimeMillis() {
		return 1_700_000_000_000L + (this.nanos.get() - ORIGIN) / 1_000_000L;
	}

	void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	void advanceNanos(long delta) {
		this.nanos.addAndGet(delta);
	}

}
