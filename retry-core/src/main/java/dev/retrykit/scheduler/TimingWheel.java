package dev.retrykit.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The buckets of a {@link TimingWheelScheduler} and the cursor of the next tick to process.
 *
 * <p>Not thread-safe: only the thread that currently drives the wheel (the worker thread, or the
 * caller of {@code runDueTasks()} in manual mode, under the scheduler's drive lock) touches it. That
 * is what lets buckets be plain singly linked lists through {@link WheelTimeout#next}, with a head and
 * a tail array instead of one object per bucket.
 *
 * <p>A node sits in bucket {@code deadlineTick & mask}. Processing tick {@code t} walks bucket
 * {@code t & mask}, fires the nodes whose deadline tick is at most {@code t} and keeps the others for a
 * later rotation: comparing the absolute deadline tick replaces a per-node "remaining rounds" counter.
 */
final class TimingWheel {

	private final @Nullable WheelTimeout[] heads;

	private final @Nullable WheelTimeout[] tails;

	private final int mask;

	/** The next tick to process; every tick before it has been processed. */
	private long nextTick;

	/** Nodes linked in buckets, including cancelled ones not yet unlinked. */
	private long linked;

	/** Cancelled nodes this wheel has let go of: dropped on arrival, or unlinked from a bucket. */
	private long droppedCancelled;

	TimingWheel(int wheelSize) {
		this.heads = new WheelTimeout[wheelSize];
		this.tails = new WheelTimeout[wheelSize];
		this.mask = wheelSize - 1;
	}

	long nextTick() {
		return this.nextTick;
	}

	long linked() {
		return this.linked;
	}

	long droppedCancelled() {
		return this.droppedCancelled;
	}

	/** Counts a cancelled node let go of by the caller: a due node whose claim found it cancelled. */
	void countDroppedCancelled() {
		this.droppedCancelled++;
	}

	/**
	 * Links a node into its bucket. A node whose deadline has already passed goes into the bucket of
	 * the next tick, so that it fires on that tick, never before its deadline.
	 */
	void add(WheelTimeout node) {
		int index = (int) (Math.max(node.deadlineTick(), this.nextTick) & this.mask);
		node.next = null;
		WheelTimeout tail = this.tails[index];
		if (tail == null) {
			this.heads[index] = node;
		}
		else {
			tail.next = node;
		}
		this.tails[index] = node;
		this.linked++;
	}

	/**
	 * Takes a chain of new nodes (linked through {@code next}): drops the cancelled ones, hands those
	 * whose tick has already been processed to {@code fire} at once, and links the others. A node is
	 * overdue when it was scheduled with a zero delay just after its tick ran, or under a clock that has
	 * not moved since; linking it would make it wait for a tick that a frozen virtual clock never starts.
	 * @param fire takes an overdue node; returns {@code false} to halt (the wheel was stopped), after
	 * which the remaining nodes are linked so that stopping hands them back
	 * @return {@code false} if halted
	 */
	boolean addAll(@Nullable WheelTimeout chain, Predicate<WheelTimeout> fire) {
		boolean goOn = true;
		for (WheelTimeout node = chain; node != null;) {
			WheelTimeout following = node.next;
			node.next = null;
			if (node.isPending()) {
				if (goOn && node.deadlineTick() < this.nextTick) {
					goOn = fire.test(node);
				}
				else {
					add(node);
				}
			}
			else {
				this.droppedCancelled++;
			}
			node = following;
		}
		return goOn;
	}

	/**
	 * Marks every tick up to {@code targetTick} as processed when no node is linked: catching up over
	 * an empty wheel (after a long idle time, or in manual mode) costs nothing.
	 * @return whether the ticks were skipped
	 */
	boolean skipIfEmpty(long targetTick) {
		if (this.linked != 0 || targetTick < this.nextTick) {
			return false;
		}
		this.nextTick = targetTick + 1;
		return true;
	}

	/**
	 * Jumps over ticks in which nothing can fire: to the earliest pending deadline, at most
	 * {@code targetTick + 1}, unlinking cancelled nodes on the way. O(wheelSize + linked nodes), so the
	 * caller uses it only when catching up over more than a rotation, and at most once per rotation.
	 *
	 * <p>Sound because a pending node whose deadline is at or after {@link #nextTick} sits in bucket
	 * {@code deadlineTick & mask}; an overdue node (deadline before {@code nextTick}) holds the
	 * earliest deadline below {@code nextTick} and so prevents any jump until it has fired.
	 */
	void fastForward(long targetTick) {
		long earliest = purgeCancelled();
		this.nextTick = Math.max(this.nextTick, Math.min(earliest, targetTick + 1));
	}

	/**
	 * Unlinks every cancelled node, so that mass cancellation releases the nodes without waiting for the
	 * timer to pass their buckets. O(wheelSize + linked nodes): the scheduler calls it only when at least
	 * half the linked nodes are cancelled, which keeps the cost per cancelled node constant.
	 * @return the earliest deadline tick of a pending node, {@link Long#MAX_VALUE} if none
	 */
	long purgeCancelled() {
		long earliest = Long.MAX_VALUE;
		for (int index = 0; index < this.heads.length; index++) {
			// Rebuilt rather than unlinked node by node: a link is written only where it changes, once
			// per run of cancelled nodes, since every reference store into a long-lived node costs a GC
			// write barrier (after a mass cancellation most buckets end up empty in one store).
			WheelTimeout last = null;
			WheelTimeout node = this.heads[index];
			while (node != null) {
				WheelTimeout following = node.next;
				if (node.isPending()) {
					earliest = Math.min(earliest, node.deadlineTick());
					if (last == null) {
						if (this.heads[index] != node) {
							this.heads[index] = node;
						}
					}
					else if (last.next != node) {
						last.next = node;
					}
					last = node;
				}
				else {
					node.next = null;
					this.linked--;
					this.droppedCancelled++;
				}
				node = following;
			}
			if (last == null) {
				if (this.heads[index] != null) {
					this.heads[index] = null;
				}
			}
			else if (last.next != null) {
				last.next = null;
			}
			if (this.tails[index] != last) {
				this.tails[index] = last;
			}
		}
		return earliest;
	}

	/**
	 * Processes the next tick: unlinks cancelled nodes met on the way and hands every due node to
	 * {@code fire}, unlinking it first so the bucket is consistent whatever {@code fire} does.
	 * @param fire takes a due node; returns {@code false} to halt at once (the wheel was stopped)
	 * @return {@code false} if halted before the tick was complete
	 */
	boolean expireNextTick(Predicate<WheelTimeout> fire) {
		long tick = this.nextTick;
		int index = (int) (tick & this.mask);
		WheelTimeout previous = null;
		WheelTimeout node = this.heads[index];
		while (node != null) {
			WheelTimeout following = node.next;
			boolean due = node.deadlineTick() <= tick;
			if (due) {
				unlink(index, previous, node, following);
				if (!fire.test(node)) {
					return false;
				}
			}
			else if (!node.isPending()) {
				unlink(index, previous, node, following);
				this.droppedCancelled++;
			}
			else {
				previous = node;
			}
			node = following;
		}
		this.nextTick = tick + 1;
		return true;
	}

	private void unlink(int index, @Nullable WheelTimeout previous, WheelTimeout node,
			@Nullable WheelTimeout following) {
		if (previous == null) {
			this.heads[index] = following;
		}
		else {
			previous.next = following;
		}
		if (this.tails[index] == node) {
			this.tails[index] = previous;
		}
		node.next = null;
		this.linked--;
	}

	/**
	 * Empties every bucket.
	 * @return the nodes that were still pending, in no particular order
	 */
	List<WheelTimeout> drainAll() {
		List<WheelTimeout> pending = new ArrayList<>();
		for (int i = 0; i < this.heads.length; i++) {
			WheelTimeout node = this.heads[i];
			while (node != null) {
				WheelTimeout following = node.next;
				node.next = null;
				if (node.isPending()) {
					pending.add(node);
				}
				node = following;
			}
			this.heads[i] = null;
			this.tails[i] = null;
		}
		this.linked = 0;
		return pending;
	}

}
