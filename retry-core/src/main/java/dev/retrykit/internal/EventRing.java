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
import org.jspecify.annotations.Nullable;

/**
 * A bounded ring of the most recent events that records without allocating: each slot is a row of
 * preallocated arrays guarded by a version (a seqlock), and {@link RetryEvent} objects are built only
 * when someone reads the events. A writer claims a sequence number and overwrites the oldest slot.
 * Thread-safe; a reader skips a slot that is being written. Should more writers than the capacity
 * race for one slot at once, its fields may mix; the ring trades that for a recording path with no
 * lock and no allocation.
 *
 * <p>Events are stamped with the monotonic clock ({@link dev.retrykit.spi.TimeSource#nanoTime()}), the one
 * the engine reads anyway (for a timer, a deadline), and turned into wall-clock time when they are read:
 * the reading's wall-clock time minus each event's age. A call whose retry waits on the scheduler
 * stamps its event and computes its deadline from one clock read.
 */
final class EventRing {

	private static final VarHandle VERSIONS = MethodHandles.arrayElementVarHandle(long[].class);

	private static final RetryEventType[] TYPES = RetryEventType.values();

	private final int capacity;

	private final AtomicLong sequence = new AtomicLong();

	/** Per slot: 0 empty, odd while being written, {@code 2 * (sequence + 1)} once written. */
	private final long[] versions;

	private final int[] types;

	private final int[] attempts;

	private final long[] delays;

	/** Monotonic nanoseconds. */
	private final long[] times;

	private final Throwable[] failures;

	EventRing(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("Invalid event buffer capacity (" + capacity + "): must be 1 or greater");
		}
		this.capacity = capacity;
		this.versions = new long[capacity];
		this.types = new int[capacity];
		this.attempts = new int[capacity];
		this.delays = new long[capacity];
		this.times = new long[capacity];
		this.failures = new Throwable[capacity];
	}

	void add(RetryEventType type, int attempt, @Nullable Throwable failure, long delayNanos, long timeNanos) {
		long sequence = this.sequence.getAndIncrement();
		int slot = (int) (sequence % this.capacity);
		VERSIONS.setOpaque(this.versions, slot, 2 * sequence + 1);
		VarHandle.storeStoreFence();
		this.types[slot] = type.ordinal();
		this.attempts[slot] = attempt;
		this.delays[slot] = delayNanos;
		this.times[slot] = timeNanos;
		if (failure != null || this.failures[slot] != null) {
			this.failures[slot] = failure;
		}
		VERSIONS.setRelease(this.versions, slot, 2 * sequence + 2);
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
		long end = this.sequence.get();
		long start = Math.max(0, end - this.capacity);
		List<Stamped> events = new ArrayList<>((int) (end - start));
		for (long sequence = start; sequence < end; sequence++) {
			Stamped event = read(name, sequence, nowNanos, nowMillis);
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

	private @Nullable Stamped read(String name, long sequence, long nowNanos, long nowMillis) {
		int slot = (int) (sequence % this.capacity);
		long version = (long) VERSIONS.getAcquire(this.versions, slot);
		if (version != 2 * sequence + 2) {
			return null;
		}
		RetryEventType type = TYPES[this.types[slot]];
		int attempt = this.attempts[slot];
		long delay = this.delays[slot];
		long time = this.times[slot];
		Throwable failure = this.failures[slot];
		VarHandle.loadLoadFence();
		if ((long) VERSIONS.getOpaque(this.versions, slot) != version) {
			return null;
		}
		// Wall-clock time to the millisecond: the reading's, less the event's age on the monotonic clock.
		Instant timestamp = Instant.ofEpochMilli(nowMillis - Math.floorDiv(nowNanos - time, 1_000_000L));
		return new Stamped(time, new RetryEvent(type, name, attempt, (failure != null) ? failure.getClass().getName() : null,
				(failure != null) ? failure.getMessage() : null, Duration.ofNanos(delay), timestamp));
	}

	/** An event with the monotonic time it was recorded at, which orders events more finely than milliseconds. */
	private record Stamped(long nanos, RetryEvent event) {
	}

}
