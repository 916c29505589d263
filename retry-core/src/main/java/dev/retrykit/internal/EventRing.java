package dev.retrykit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import dev.retrykit.RetryEvent;

/**
 * A bounded, lock-free ring of the most recent events: writers claim a sequence number and store into
 * its slot, overwriting the oldest. Thread-safe.
 */
final class EventRing {

	private final AtomicReferenceArray<RetryEvent> slots;

	private final AtomicLong sequence = new AtomicLong();

	EventRing(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("Invalid event buffer capacity (" + capacity + "): must be 1 or greater");
		}
		this.slots = new AtomicReferenceArray<>(capacity);
	}

	void add(RetryEvent event) {
		long index = this.sequence.getAndIncrement();
		this.slots.set((int) (index % this.slots.length()), event);
	}

	long recorded() {
		return this.sequence.get();
	}

	List<RetryEvent> snapshot() {
		long end = this.sequence.get();
		int capacity = this.slots.length();
		long start = Math.max(0, end - capacity);
		List<RetryEvent> events = new ArrayList<>((int) (end - start));
		for (long i = start; i < end; i++) {
			RetryEvent event = this.slots.get((int) (i % capacity));
			if (event != null) {
				events.add(event);
			}
		}
		events.sort(java.util.Comparator.comparing(RetryEvent::timestamp));
		return events;
	}

}
