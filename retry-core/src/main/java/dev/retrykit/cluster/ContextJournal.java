package dev.retrykit.cluster;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import dev.retrykit.InMemoryRetryContextCache;
import dev.retrykit.context.RetryContext;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.RetryContextSnapshot;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The offline journal of one instance's shared context cache: the keys changed on the local cache while the
 * engine did not answer (up to the local cache's capacity; past it, counted as dropped), and their write-back once
 * it answers again ({@link #replay()}): a removal (a call that succeeded or was exhausted) removes the shared entry;
 * failures counted locally are added to the shared count, or replace it when the key was removed locally in
 * between. A write the caller gave up on at the timeout may still be running (Hazelcast's calls wait through the
 * interrupt): it starts no new try on what it reads then ({@link EngineCalls.Caller}), so only its compare-and-set
 * already out can land, on the bytes it read, never on top of the write-back that counted it. Thread-safe.
 */
final class ContextJournal {

	private final String instance;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final InMemoryRetryContextCache local;

	private final SharedEntries entries;

	private final ClusterCounters counters;

	private final TimeSource timeSource;

	/** Keys changed on the local cache while the engine did not answer, oldest first. Guarded by itself. */
	private final Map<Object, ContextReplay> replays = new LinkedHashMap<>();

	ContextJournal(String instance, ClusterEngine engine, EngineCalls calls, InMemoryRetryContextCache local,
			SharedEntries entries, ClusterCounters counters, TimeSource timeSource) {
		this.instance = instance;
		this.engine = engine;
		this.calls = calls;
		this.local = local;
		this.entries = entries;
		this.counters = counters;
		this.timeSource = timeSource;
	}

	/**
	 * Remembers a change made on the local cache, to be written to the engine once it answers again.
	 * @param key the caller's key
	 * @param removed whether the change removed the key
	 * @param writeId the write that was sent and not answered in time (it may still be applied)
	 * @param added the failures the change added (and that write carried)
	 */
	void remember(Object key, boolean removed, long writeId, int added) {
		synchronized (this.replays) {
			ContextReplay replay = this.replays.get(key);
			if (replay == null) {
				if (this.replays.size() >= this.local.capacity()) {
					this.counters.replayDropped.increment();
					return;
				}
				replay = new ContextReplay();
				this.replays.put(key, replay);
			}
			replay.changed(removed, writeId, added);
		}
	}

	/**
	 * Writes the changes made on the local cache during a fallback to the engine, oldest first, until
	 * the engine does not answer (the rest waits for the next time). Called when the engine answers again.
	 * Each write-back works on a copy of what the key's record says at its start, so that changes counted
	 * while it runs (or while the engine holds it) are written by the next one, never twice.
	 */
	void replay() {
		List<Object> keys;
		synchronized (this.replays) {
			keys = new ArrayList<>(this.replays.keySet());
		}
		for (Object key : keys) {
			ContextReplay replay;
			ContextReplay.State state;
			synchronized (this.replays) {
				replay = this.replays.get(key);
				if (replay == null) {
					continue;
				}
				state = replay.state();
			}
			RetryContext mine = state.removed() ? null : this.local.get(key);
			long writeId = ThreadLocalRandom.current().nextLong();
			boolean written = this.calls.call(caller -> {
				writeBack(SharedEntries.key(key), state, mine, writeId, caller);
				return true;
			}, () -> false);
			synchronized (this.replays) {
				if (this.replays.get(key) != replay) {
					continue;
				}
				if (!written) {
					// The write-back may still be applied: if it was, the shared entry has every failure of this state.
					replay.unansweredWriteBack(state, writeId);
					return;
				}
				if (replay.written(state)) {
					this.replays.remove(key);
					this.local.remove(key);
				}
			}
		}
	}

	/**
	 * Writes one key's state back: removes the shared entry, or adds the failures the entry does not show
	 * applied. Once the caller has given up, no try starts on what was read: the next write-back, which
	 * knows this one only by its id, may have counted the same failures (see {@link EngineCalls.Caller}).
	 */
	private void writeBack(String shared, ContextReplay.State state, @Nullable RetryContext mine, long writeId,
			EngineCalls.Caller caller) {
		if (state.removed()) {
			this.engine.removeContext(this.instance, shared);
			return;
		}
		if (mine == null) {
			// Evicted from the local cache before it could be written back.
			this.counters.replayDropped.increment();
			return;
		}
		for (;;) {
			byte[] stored = this.engine.getContext(this.instance, shared);
			RetryContextSnapshot current = this.entries.decode(shared, stored);
			if (current != null && current.hasWrite(writeId)) {
				// The engine applied this write and retried it (a member left before it answered): done.
				return;
			}
			if (caller.hasGivenUp()) {
				return;
			}
			long applied = (current != null && !state.replaceShared()) ? state.appliedIn(current) : 0;
			if (applied >= state.added() && !state.replaceShared()) {
				// Everything counted here reached the engine already, through writes it answered late.
				return;
			}
			// After a local removal the entry from before is obsolete: what was counted since replaces it.
			RetryContextSnapshot base = (state.replaceShared() || current == null) ? null : current;
			RetryContext next = merged(base, mine, (int) (state.added() - applied), this.timeSource.currentTimeMillis());
			if (this.engine.compareAndSetContext(this.instance, shared, stored,
					this.entries.encode(next, current, writeId))) {
				return;
			}
		}
	}

	/**
	 * The failures added locally on top of the shared entry ({@code null}: on nothing), less those
	 * already applied; the last failure and the attributes of the local context.
	 */
	private static RetryContextSnapshot merged(@Nullable RetryContextSnapshot base, RetryContext mine, int added,
			long now) {
		RetryContextSnapshot shared = (base != null) ? base
				: RetryContextSnapshot.of(mine.getName(), 0, false, null, null, now, Map.of());
		RetryContextSnapshot local = RetryContextSnapshot.of(mine, shared.getFirstFailureMillis());
		Map<String, Serializable> attributes = new HashMap<>();
		for (RetryContextSnapshot snapshot : List.of(shared, local)) {
			for (String name : snapshot.attributeNames()) {
				attributes.put(name, (Serializable) snapshot.getAttribute(name));
			}
		}
		boolean localFailure = local.getLastFailureType() != null;
		return RetryContextSnapshot.of(shared.getName(), shared.getRetryCount() + Math.max(0, added),
				shared.isExhaustedOnly() || local.isExhaustedOnly(),
				localFailure ? local.getLastFailureType() : shared.getLastFailureType(),
				localFailure ? local.getLastFailureMessage() : shared.getLastFailureMessage(), shared.getFirstFailureMillis(),
				attributes);
	}

	/** @return how many keys changed on local state wait to be written to the engine */
	int pending() {
		synchronized (this.replays) {
			return this.replays.size();
		}
	}

	/** Forgets every change waiting to be written back (the cache was cleared: no cleared key comes back). */
	void clear() {
		synchronized (this.replays) {
			this.replays.clear();
		}
	}

}
