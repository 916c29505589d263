package dev.retrykit.internal;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;

import dev.retrykit.RetryCallback;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryTemplate;
import dev.retrykit.VirtualTime;
import dev.retrykit.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The recent-event ring is bounded in bytes, not only in count: it keeps each failure's type name and
 * a bounded message, never the {@link Throwable} (with its stack trace, causes and whatever large body
 * its message carried).
 */
class EventRingTests {

	private static final int LARGE = 256 * 1024;

	private static final long NOW_NANOS = 5_000_000_000L;

	private static final long NOW_MILLIS = 1_700_000_000_000L;

	private static String body(int length) {
		StringBuilder text = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			text.append((char) ('a' + i % 26));
		}
		return text.toString();
	}

	/** Records a failure carrying a large message; only a weak reference to it leaves this method. */
	private static WeakReference<Throwable> recordLargeFailure(EventRing ring) {
		IOException failure = new IOException(body(LARGE));
		ring.add(RetryEventType.RETRY, 1, failure, 0, NOW_NANOS);
		return new WeakReference<>(failure);
	}

	/** Polls the collector a bounded number of times until the reference is cleared. */
	private static boolean clearedAfterGc(WeakReference<?> reference) {
		for (int i = 0; i < 20 && reference.get() != null; i++) {
			System.gc();
		}
		return reference.get() == null;
	}

	private static RetryEvent onlyEvent(EventRing ring) {
		List<RetryEvent> events = ring.snapshot("inventory", NOW_NANOS, NOW_MILLIS);
		assertThat(events).hasSize(1);
		return events.get(0);
	}

	@Test
	void theRingDoesNotRetainTheFailureButItsEventStaysReadable() {
		EventRing ring = new EventRing(4);
		WeakReference<Throwable> failure = recordLargeFailure(ring);

		assertThat(clearedAfterGc(failure)).as("the failure was collected while its event is kept").isTrue();

		RetryEvent event = onlyEvent(ring);
		assertThat(event.exceptionType()).isEqualTo(IOException.class.getName());
		assertThat(event.exceptionMessage()).startsWith(body(EventRing.MAX_MESSAGE_LENGTH))
			.endsWith("... [truncated from " + LARGE + " characters]");
	}

	@Test
	void aLongMessageIsCutToTheLimitAndMarkedAsTruncated() {
		EventRing ring = new EventRing(4);
		ring.add(RetryEventType.RETRY, 1, new IOException(body(EventRing.MAX_MESSAGE_LENGTH + 1)), 0, NOW_NANOS);

		assertThat(onlyEvent(ring).exceptionMessage())
			.isEqualTo(body(EventRing.MAX_MESSAGE_LENGTH) + "... [truncated from 257 characters]");
	}

	@Test
	void aMessageWithinTheLimitAndANullMessageAreKeptAsTheyAre() {
		EventRing ring = new EventRing(4);
		String exact = body(EventRing.MAX_MESSAGE_LENGTH);
		ring.add(RetryEventType.RETRY, 1, new IOException(exact), 0, NOW_NANOS);
		ring.add(RetryEventType.RETRY, 2, new IllegalStateException(), 0, NOW_NANOS + 1);
		ring.add(RetryEventType.RETRY, 3, null, 0, NOW_NANOS + 2);

		List<RetryEvent> events = ring.snapshot("inventory", NOW_NANOS + 2, NOW_MILLIS);
		assertThat(events).extracting(RetryEvent::exceptionType)
			.containsExactly(IOException.class.getName(), IllegalStateException.class.getName(), null);
		assertThat(events).extracting(RetryEvent::exceptionMessage).containsExactly(exact, null, null);
	}

	@Test
	void aFailureWhoseGetMessageThrowsIsStillRecordedWithItsType() {
		EventRing ring = new EventRing(4);
		ring.add(RetryEventType.RETRY, 1, new IOException() {
			@Override
			public String getMessage() {
				throw new IllegalStateException("broken getMessage");
			}
		}, 0, NOW_NANOS);

		RetryEvent event = onlyEvent(ring);
		assertThat(event.exceptionType()).startsWith(EventRingTests.class.getName());
		assertThat(event.exceptionMessage()).isEqualTo("(getMessage() threw java.lang.IllegalStateException)");
	}

	@Test
	void anEventWithoutAFailureInASlotThatHeldOneShowsNoFailure() {
		EventRing ring = new EventRing(1);
		ring.add(RetryEventType.RETRY, 1, new IOException("refused"), 0, NOW_NANOS);

		ring.add(RetryEventType.SUCCESS_AFTER_RETRY, 2, null, 0, NOW_NANOS + 1);

		RetryEvent event = ring.snapshot("inventory", NOW_NANOS + 2, NOW_MILLIS).get(0);
		assertThat(event.type()).isEqualTo(RetryEventType.SUCCESS_AFTER_RETRY);
		assertThat(event.exceptionType()).isNull();
		assertThat(event.exceptionMessage()).isNull();
	}

	@Test
	void eachEventKeepsItsOwnFailuresTextWhenFailuresAlternate() {
		EventRing ring = new EventRing(8);
		IOException refused = new IOException("refused");
		for (int i = 0; i < 12; i++) {
			Exception failure = (i % 3 == 2) ? new IllegalStateException("busy " + i) : refused;
			ring.add(RetryEventType.RETRY, i + 1, failure, 0, NOW_NANOS + i);
		}

		List<RetryEvent> events = ring.snapshot("inventory", NOW_NANOS + 20, NOW_MILLIS);

		assertThat(events).hasSize(8);
		for (RetryEvent event : events) {
			int i = event.attempt() - 1;
			if (i % 3 == 2) {
				assertThat(event.exceptionType()).isEqualTo(IllegalStateException.class.getName());
				assertThat(event.exceptionMessage()).isEqualTo("busy " + i);
			}
			else {
				assertThat(event.exceptionType()).isEqualTo(IOException.class.getName());
				assertThat(event.exceptionMessage()).isEqualTo("refused");
			}
		}
	}

	@Test
	void aTemplatesRecentEventsKeepTheTypeAndABoundedMessageOfEachFailure() {
		RetryTemplate template = RetryTemplate.builder().name("inventory").virtualTime(new VirtualTime())
			.maxAttempts(3).backoff(BackoffPolicy.fixed(Duration.ofMillis(10))).build();
		RetryCallback<String, IOException> failing = context -> {
			throw new IOException(body(LARGE));
		};

		assertThatThrownBy(() -> template.execute(failing)).isInstanceOf(IOException.class);

		List<RetryEvent> events = template.getMetrics().getRecentEvents();
		assertThat(events).isNotEmpty().allSatisfy(event -> {
			if (event.exceptionType() != null) {
				assertThat(event.exceptionType()).isEqualTo(IOException.class.getName());
				assertThat(event.exceptionMessage()).hasSizeLessThan(EventRing.MAX_MESSAGE_LENGTH + 64)
					.contains("truncated from " + LARGE);
			}
		});
		assertThat(events).filteredOn(event -> event.exceptionType() != null).hasSizeGreaterThanOrEqualTo(2);
	}

	@Test
	void anEventReadsTheSameTimeAtEveryReadingWhileTheWallClockTicksInMilliseconds() {
		EventRing ring = new EventRing(4);
		// The wall clock reads whole milliseconds of a time 0.5 ms past a millisecond at monotonic time 0.
		long wallAtZero = NOW_MILLIS * 1_000_000L + 500_000L;
		ring.add(RetryEventType.RETRY, 1, null, 0, 0);
		List<java.time.Instant> times = new java.util.ArrayList<>();
		for (long now = 100_000; now <= 2_000_000; now += 300_000) {
			long millis = Math.floorDiv(wallAtZero + now, 1_000_000L);
			times.add(ring.snapshot("inventory", now, millis).get(0).timestamp());
		}
		assertThat(times).containsOnly(java.time.Instant.ofEpochMilli(NOW_MILLIS));
	}

	@Test
	void eventsOnWholeMillisecondsOfAClockReadOnWholeMillisecondsGetExactTimes() {
		EventRing ring = new EventRing(4);
		ring.add(RetryEventType.RETRY, 1, null, 0, 1_000_000);
		assertThat(ring.snapshot("inventory", 3_000_000, NOW_MILLIS + 3).get(0).timestamp())
			.isEqualTo(java.time.Instant.ofEpochMilli(NOW_MILLIS + 1));
		ring.add(RetryEventType.RETRY, 2, null, 0, 4_000_000);
		assertThat(ring.snapshot("inventory", 7_300_000, NOW_MILLIS + 7)).extracting(RetryEvent::timestamp)
			.containsExactly(java.time.Instant.ofEpochMilli(NOW_MILLIS + 1), java.time.Instant.ofEpochMilli(NOW_MILLIS + 4));
	}

	@Test
	void aStepOfTheWallClockIsFollowed() {
		EventRing ring = new EventRing(4);
		ring.add(RetryEventType.RETRY, 1, null, 0, 0);
		assertThat(ring.snapshot("inventory", 0, NOW_MILLIS).get(0).timestamp())
			.isEqualTo(java.time.Instant.ofEpochMilli(NOW_MILLIS));
		// NTP set the clock 5 s back.
		assertThat(ring.snapshot("inventory", 1_000_000, NOW_MILLIS - 4_999).get(0).timestamp())
			.isEqualTo(java.time.Instant.ofEpochMilli(NOW_MILLIS - 5_000));
	}

}
