package dev.retrykit.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The lock-free multi-producer, single-consumer stack through which new nodes reach the wheel.
 *
 * <p>Intrusive: a node is its own link ({@link WheelTimeout#next}), so a push allocates nothing. Any
 * thread may {@link #push}; only the thread driving the wheel (holding the scheduler's drive lock)
 * calls {@link #takeAll()} and {@link #close()}. Closing swaps in a marker node, which makes every
 * later push fail: a node is either taken by the wheel, or returned by {@code close()}, or refused.
 */
final class IncomingStack {

	private final AtomicReference<@Nullable WheelTimeout> head = new AtomicReference<>();

	private final WheelTimeout closedMarker;

	private final TickClock clock;

	IncomingStack(TimingWheelScheduler owner, TickClock clock) {
		this.closedMarker = new WheelTimeout(owner, WheelTimeout.STOPPED);
		this.clock = clock;
	}

	/**
	 * Pushes a node; lock-free.
	 * @return {@code false} if the stack was closed, in which case the node was not pushed
	 */
	boolean push(WheelTimeout node) {
		WheelTimeout current;
		do {
			current = this.head.get();
			if (current == this.closedMarker) {
				return false;
			}
			node.next = current;
		}
		while (!this.head.compareAndSet(current, node));
		return true;
	}

	/**
	 * @return the nodes pushed since the last call, oldest first, linked through {@code next}; those
	 * whose delay counts from this pass are resolved against one clock reading, taken after they were
	 * pushed
	 */
	@Nullable WheelTimeout takeAll() {
		return oldestFirst(this.head.getAndSet(null));
	}

	/**
	 * Closes the stack: later pushes fail.
	 * @return the nodes that were still in it and are pending, oldest first, unlinked
	 */
	List<WheelTimeout> close() {
		WheelTimeout taken = this.head.getAndSet(this.closedMarker);
		List<WheelTimeout> pending = new ArrayList<>();
		for (WheelTimeout node = (taken == this.closedMarker) ? null : oldestFirst(taken); node != null;) {
			WheelTimeout following = node.next;
			node.next = null;
			if (node.isPending()) {
				pending.add(node);
			}
			node = following;
		}
		return pending;
	}

	private @Nullable WheelTimeout oldestFirst(@Nullable WheelTimeout newestFirst) {
		WheelTimeout reversed = null;
		WheelTimeout node = newestFirst;
		boolean read = false;
		long now = 0;
		while (node != null) {
			if (node.isFromNextPass()) {
				if (!read) {
					now = this.clock.timeSource().nanoTime();
					read = true;
				}
				node.resolve(this.clock, now);
			}
			WheelTimeout following = node.next;
			node.next = reversed;
			reversed = node;
			node = following;
		}
		return reversed;
	}

}
