package dev.retrykit.internal;

import java.util.List;

import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.spi.TimeSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Events of an instance on the system time source are stamped by its coarse clock. */
class CoarseEventStampTests {

	@Test
	void eventsOfAnInstanceOnTheSystemTimeSourceAreStampedInTheOrderTheyHappened() {
		RetryCounters counters = new RetryCounters("coarse", TimeSource.SYSTEM, 16);
		long wallBefore = System.currentTimeMillis();

		counters.eventAt(RetryEventType.RETRY, 1, null, 0, System.nanoTime());
		counters.event(RetryEventType.SUCCESS_AFTER_RETRY, 2, null, 0);

		List<RetryEvent> events = counters.getRecentEvents();
		assertThat(events).extracting(RetryEvent::type)
			.containsExactly(RetryEventType.RETRY, RetryEventType.SUCCESS_AFTER_RETRY);
		long wallAfter = System.currentTimeMillis();
		// A millisecond for rounding and up to a few ticks for a ticker that was just starting or late.
		assertThat(events).allSatisfy(event -> assertThat(event.timestamp().toEpochMilli())
			.isBetween(wallBefore - 1 - 10, wallAfter));
	}

}
