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

	void add(RetryEventType type, int attempt, @Nullable Throwable failure, long delayNanos, long timeMillis) {
		long sequence = this.sequence.getAndIncrement();
		int slot = (int) (sequence % this.capacity);
		VERSIONS.setOpaque(this.versions, slot, 2 * sequence + 1);
		VarHandle.storeStoreFence();
		this.types[slot] = type.ordinal();
		this.attempts[slot] = attempt;
		this.delays[slot] = delayNanos;
		this.times[slot] = timeMillis;
		if (failure != null || this.failures[slot] != null) {
			this.failures[slot] = failure;
		}
		VERSIONS.setRelease(this.versions, slot, 2 * sequence + 2);
	}

	long recorded() {
		return this.sequence.get();
	}

	List<RetryEvent> snapshot(String name) {
		long end = this.sequence.get();
		long start = Math.max(0, end - this.capacity);
		List<RetryEvent> events = new ArrayList<>((int) (end - start));
		for (long sequence = start; sequence < end; sequence++) {
			RetryEvent event = read(name, sequence);
			if (event != null) {
				events.add(event);
			}
		}
		events.sort(Comparator.comparing(RetryEvent::timestamp));
		return events;
	}

	private @Nullable RetryEvent read(String name, long sequence) {
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
		return new RetryEvent(type, name, attempt, (failure != null) ? failure.getClass().getName() : null,
				(failure != null) ? failure.getMessage() : null, Duration.ofNanos(delay), Instant.ofEpochMilli(time));
	}

}
