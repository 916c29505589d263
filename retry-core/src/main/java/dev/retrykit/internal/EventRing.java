package dev.retrykit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.retrykit.RetryEvent;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryTemplateBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A bounded ring of the most recent events that records without allocating: each slot is four longs
 * of one preallocated array (and a failure's type name and bounded message) guarded by a version (a seqlock), and
 * {@link RetryEvent} objects are built only when someone reads the events. A writer claims a sequence
 * number and overwrites the oldest slot. Thread-safe; a reader skips a slot that is being written.
 * Should more writers than there are slots race for one slot at once, its fields may mix; the ring
 * trades that for a recording path with no lock and no allocation.
 *
 * <p>Events are stamped with a monotonic clock and turned into wall-clock time when they are read, through the
 * offset between the two clocks at an anchor reading. The anchor is the first reading, kept while
 * the two clocks' offset at later readings stays within a second of its own: an event reads the same time at
 * every reading (the wall clock is read to the millisecond, the monotonic one to the nanosecond, so anchoring
 * each reading anew moved events by a millisecond either way), and a step of the wall clock (NTP, a suspended
 * machine) is followed. An instance on the system time source stamps them with its
 * {@link dev.retrykit.spi.TimeSource#coarseNanoTime() coarse clock}, a field read to the millisecond; one on another time source (virtual
 * time) with that source's {@link dev.retrykit.spi.TimeSource#nanoTime()}.
 */
final class EventRing {

	private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

	private static final RetryEventType[] TYPES = RetryEventType.values();

	/** Per slot, in {@link #fields}: the version, the time, the delay, and the type and attempt packed. */
	private static final int FIELDS = 4;

	static final int MAX_MESSAGE_LENGTH = FailureText.MAX_MESSAGE_LENGTH;

	private final int capacity;

	/** Slots minus one: the slots are a power of two at least the capacity, so a slot is a mask away. */
	private final int mask;

	private final AtomicLong sequence = new AtomicLong();

	/**
	 * The slots' fields side by side, so that recording an event writes one or two cache lines: at
	 * {@code FIELDS * slot}, the version (0 empty, odd while being written, {@code 2 * (sequence + 1)}
	 * once written); then the monotonic time in nanoseconds; the delay; the type's ordinal in the high
	 * half and the attempt in the low half.
	 */
	private final long[] fields;

	/** In a slot's packed type and attempt: the event has a failure, whose text is the slot's {@link #texts} entry. */
	private static final long HAS_FAILURE = 1L << 62;

	/**
	 * Per slot, the failure's type name and bounded message ({@link FailureText}), never the failure:
	 * a kept {@code Throwable} (stack trace, causes, a message carrying a whole response body) made the
	 * ring bounded in count but not in bytes. An event without a failure leaves its slot's entry as it
	 * is (the {@link #HAS_FAILURE} bit tells), and an entry is replaced only by a different text: a
	 * reference stored into this long-lived array costs a collector's write barrier, a memory fence
	 * under G1, so a failure that keeps recurring is recorded with reads alone.
	 */
	private final @Nullable Text[] texts;

	/**
	 * The text of the last failure recorded, reused while failures keep the same type name and message
	 * (the same strings). Written by any writer without synchronization: a {@link Text} is immutable.
	 */
	private @Nullable Text lastText;

	/** The reading events are turned into wall-clock time from; {@code null} before the first. */
	private volatile @Nullable Anchor anchor;

	/** How far the clocks' offset at a reading may move from the anchor's before it is taken anew: a step of the wall clock. */
	private static final long OFFSET_STEP_NANOS = 1_000_000_000L;

	EventRing(int capacity) {
		// The builders refuse such a size first, with the property's name; this guards direct use.
		int max = RetryTemplateBuilder.MAX_EVENT_BUFFER_SIZE;
		if (capacity < 1 || capacity > max) {
			throw new IllegalArgumentException("Invalid event buffer capacity (" + capacity + "): must be between 1 and "
					+ max);
		}
		this.capacity = capacity;
		int slots = (capacity == 1) ? 1 : Integer.highestOneBit(capacity - 1) << 1;
		this.mask = slots - 1;
		this.fields = new long[FIELDS * slots];
		this.texts = new Text[slots];
	}

	void add(RetryEventType type, int attempt, @Nullable Throwable failure, long delayNanos, long timeNanos) {
		long sequence = this.sequence.getAndIncrement();
		int slot = (int) sequence & this.mask;
		int at = FIELDS * slot;
		LONGS.setOpaque(this.fields, at, 2 * sequence + 1);
		VarHandle.storeStoreFence();
		this.fields[at + 1] = timeNanos;
		this.fields[at + 2] = delayNanos;
		long typeAndAttempt = ((long) type.ordinal() << 32) | (attempt & 0xFFFF_FFFFL);
		if (failure != null) {
			Text text = text(failure);
			if (this.texts[slot] != text) {
				this.texts[slot] = text;
			}
			typeAndAttempt |= HAS_FAILURE;
		}
		this.fields[at + 3] = typeAndAttempt;
		LONGS.setRelease(this.fields, at, 2 * sequence + 2);
	}

	/** The failure's text: the last one recorded when its strings are the same, else a new one. */
	private Text text(Throwable failure) {
		String type = failure.getClass().getName();
		String message = FailureText.boundedMessage(failure);
		Text last = this.lastText;
		if (last != null && last.type() == type && last.message() == message) {
			return last;
		}
		Text text = new Text(type, message);
		this.lastText = text;
		return text;
	}

	long recorded() {
		return this.sequence.get();
	}

	/**
	 * @param name the instance name
	 * @param nowNanos the monotonic time of this reading
	 * @param nowMillis the wall-clock time of this reading
	 * @return the events kept, oldest first
	 */
	List<RetryEvent> snapshot(String name, long nowNanos, long nowMillis) {
		Anchor anchor = anchor(nowNanos, nowMillis);
		long end = this.sequence.get();
		long start = Math.max(0, end - this.capacity);
		List<Stamped> events = new ArrayList<>((int) (end - start));
		for (long sequence = start; sequence < end; sequence++) {
			Stamped event = read(name, sequence, anchor);
			if (event != null) {
				events.add(event);
			}
		}
		events.sort(Comparator.comparingLong(Stamped::nanos));
		List<RetryEvent> sorted = new ArrayList<>(events.size());
		for (Stamped event : events) {
			sorted.add(event.event());
		}
		return sorted;
	}

	/** The kept anchor, unless this reading's clocks are a second away from it: then this reading. */
	private Anchor anchor(long nowNanos, long nowMillis) {
		Anchor kept = this.anchor;
		if (kept == null || Math.abs(kept.offsetNanos() - Anchor.offsetNanos(nowNanos, nowMillis)) > OFFSET_STEP_NANOS) {
			kept = new Anchor(nowNanos, nowMillis);
			this.anchor = kept;
		}
		return kept;
	}

	private @Nullable Stamped read(String name, long sequence, Anchor anchor) {
		int slot = (int) sequence & this.mask;
		int at = FIELDS * slot;
		long version = (long) LONGS.getAcquire(this.fields, at);
		if (version != 2 * sequence + 2) {
			return null;
		}
		long time = this.fields[at + 1];
		long delay = this.fields[at + 2];
		long typeAndAttempt = this.fields[at + 3];
		Text text = ((typeAndAttempt & HAS_FAILURE) != 0) ? this.texts[slot] : null;
		VarHandle.loadLoadFence();
		if ((long) LONGS.getOpaque(this.fields, at) != version) {
			return null;
		}
		RetryEventType type = TYPES[(int) ((typeAndAttempt & ~HAS_FAILURE) >>> 32)];
		String failureType = (text != null) ? text.type() : null;
		String failureMessage = (text != null) ? text.message() : null;
		int attempt = (int) typeAndAttempt;
		// Wall-clock time to the millisecond: the event's monotonic time moved by the anchor's offset between the
		// clocks. The anchor's wall clock was read to the millisecond, so the true offset is up to a millisecond
		// above the one read; taking the top of that range turns an event into the same millisecond as the old
		// reading-minus-age did at its first reading (exact in virtual time for events on whole milliseconds).
		Instant timestamp = Instant.ofEpochMilli(Math.floorDiv(anchor.offsetNanos() + 999_999L + time, 1_000_000L));
		return new Stamped(time, new RetryEvent(type, name, attempt, failureType, failureMessage, Duration.ofNanos(delay),
				timestamp));
	}

	/**
	 * A reading of both clocks.
	 * @param nanos the monotonic time
	 * @param millis the wall-clock time
	 */
	private record Anchor(long nanos, long millis) {

		long offsetNanos() {
			return offsetNanos(this.nanos, this.millis);
		}

		static long offsetNanos(long nanos, long millis) {
			return millis * 1_000_000L - nanos;
		}

	}

	/** A failure's type name and bounded message. */
	private record Text(String type, @Nullable String message) {
	}

	/** An event with the monotonic time it was recorded at, which orders events more finely than milliseconds. */
	private record Stamped(long nanos, RetryEvent event) {
	}

}
