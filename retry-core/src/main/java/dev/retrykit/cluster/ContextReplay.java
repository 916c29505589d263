package dev.retrykit.cluster;

import java.util.ArrayList;
import java.util.List;

import dev.retrykit.spi.RetryContextSnapshot;

/**
 * What a key's local changes during a fallback still owe the engine, counted as positions in the
 * sequence of failures counted locally since the fallback began (or since the last local removal):
 * up to {@code written} they are known to be in the shared entry; each unanswered write covers a range
 * of positions, which are in the shared entry if that write's id is. Guarded by the map of {@link ContextJournal} that holds it (one per key changed during a fallback).
 */
final class ContextReplay {

	/** How many unanswered writes a key remembers; older ones are taken as not applied. */
	private static final int MAX_UNANSWERED = 16;

	/** Whether the key's last local change removed it. */
	private boolean removed;

	/** Whether the shared entry from before is obsolete: removed here and not written over since. */
	private boolean replaceShared;

	/** Bumped by every local removal: a write-back of an older state must not clear a newer removal. */
	private int generation;

	/** The failures counted locally. */
	private long added;

	/** Of those, how many are known to be in the shared entry. */
	private long written;

	/** Writes not answered in time, as {id, from, to}: positions (from, to] are applied if the id is found. */
	private final List<long[]> unanswered = new ArrayList<>(2);

	void changed(boolean removal, long writeId, int failures) {
		this.removed = removal;
		if (removal) {
			this.replaceShared = true;
			this.generation++;
			this.added = 0;
			this.written = 0;
			this.unanswered.clear();
			return;
		}
		long from = this.added;
		this.added += failures;
		if (writeId != 0 && failures > 0) {
			unanswered(writeId, from, this.added);
		}
	}

	private void unanswered(long writeId, long from, long to) {
		if (this.unanswered.size() == MAX_UNANSWERED) {
			this.unanswered.remove(0);
		}
		this.unanswered.add(new long[] { writeId, from, to });
	}

	State state() {
		return new State(this.removed, this.replaceShared, this.generation, this.added, this.written,
				List.copyOf(this.unanswered));
	}

	/** A write-back of {@code state} was not answered: if applied, it put every failure of it in the entry. */
	void unansweredWriteBack(State state, long writeId) {
		if (state.generation() == this.generation && !state.removed()) {
			unanswered(writeId, 0, state.added());
		}
	}

	/**
	 * A write-back of {@code state} was applied.
	 * @return whether nothing is owed any more, so the record can go
	 */
	boolean written(State state) {
		if (state.generation() != this.generation) {
			return false;
		}
		if (state.removed()) {
			// The removal reached the engine; failures counted since add to whatever it holds now.
			this.replaceShared = false;
			return this.removed;
		}
		this.replaceShared = false;
		this.written = Math.max(this.written, state.added());
		this.unanswered.removeIf(write -> write[2] <= this.written);
		return !this.removed && this.written >= this.added;
	}

	/**
	 * A record's state when a write-back starts.
	 * @param unanswered the writes not answered in time then, as {id, from, to}
	 */
	record State(boolean removed, boolean replaceShared, int generation, long added, long written,
			List<long[]> unanswered) {

		/** @return how many of the failures are in {@code stored}: known written, or by writes found in it */
		long appliedIn(RetryContextSnapshot stored) {
			List<long[]> ranges = new ArrayList<>();
			ranges.add(new long[] { 0, this.written });
			for (long[] write : this.unanswered) {
				if (stored.hasWrite(write[0])) {
					ranges.add(new long[] { write[1], write[2] });
				}
			}
			ranges.sort((x, y) -> Long.compare(x[0], y[0]));
			long covered = 0;
			long end = 0;
			for (long[] range : ranges) {
				long from = Math.max(range[0], end);
				if (range[1] > from) {
					covered += range[1] - from;
					end = range[1];
				}
			}
			return Math.min(covered, this.added);
		}

	}

}
