package dev.retrykit.cluster;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import dev.retrykit.InMemoryRetryContextCache;
import dev.retrykit.context.RetryContext;
import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextCacheEntry;
import dev.retrykit.spi.RetryContextSnapshot;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The context cache of one instance, shared by the replicas through the engine. A stateful call reads
 * its entry once ({@link #get}) and records its outcome with {@link #update}, which the engine applies
 * with a compare-and-set loop on the stored bytes: the update (the engine adds the call's failures to
 * the count stored at that moment) runs again when another replica wrote in between, so calls with the
 * same key running at once on several replicas lose no failure and count none twice. Entries are
 * snapshots encoded by the cluster's {@link SnapshotCodec}; an entry it cannot decode (garbage, a newer
 * format, an attribute class missing here) is treated as absent, counted, logged once per key, and
 * replaced by the next write of its key.
 *
 * <p>When the engine is unreachable or slow the cache works on a local in-memory cache of the same
 * capacity, and remembers which keys it changed there (up to the capacity; past it, counted as
 * dropped). Once the engine answers again, {@link #replay()} writes those changes back: a removal
 * (a call that succeeded or was exhausted) removes the shared entry; failures counted locally are
 * added to the shared count, or replace it when the key was removed locally in between. A write the
 * caller gave up on at the timeout may still be running (Hazelcast's calls wait through the interrupt):
 * it starts no new try on what it reads then ({@link EngineCalls.Caller}), so only its compare-and-set
 * already out can land, on the bytes it read, never on top of the write-back that counted it. Keys are shared
 * in their {@code toString()} form, which must therefore be the same on every replica; a key whose form
 * is longer than {@value #MAX_KEY_BYTES} bytes in UTF-8 (or starts with {@code sha256:}) is shared as
 * {@code sha256:} and the lowercase hex SHA-256 of those bytes, so that a caller's key can never make an
 * entry of the store unbounded. An entry that cannot be decoded never counts as a failure of the engine:
 * the engine answered, the entry is bad, and the next write replaces it. Thread-safe.
 */
final class ClusterContextCache implements RetryContextCache {

	/** The longest key, in UTF-8 bytes, shared as it is; a longer one is shared as its SHA-256. */
	static final int MAX_KEY_BYTES = 1024;

	/** What starts the shared form of a hashed key; a key that starts so itself is hashed too. */
	private static final String HASHED = "sha256:";

	private final String instance;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final TimeSource timeSource;

	private final SnapshotCodec codec;

	private final ClusterCounters counters;

	private final InMemoryRetryContextCache local;

	/** A context with no failure: what an update adds to it is what it adds to any stored count. */
	private final RetryContextSnapshot empty;

	private volatile boolean used;

	/** The most evictions the engine has reported: kept while it is unreachable, so the count never drops. */
	private final AtomicLong sharedEvictions = new AtomicLong();

	/** What the last reads of keys found ({@link #ABSENT} for no entry), at most {@value #LAST_READS} keys. */
	private final Map<String, byte[]> lastRead = new ConcurrentHashMap<>();

	/** How many keys' last reads are kept; past it they are all forgotten (a write then reads first). */
	private static final int LAST_READS = 1024;

	/** A last read that found no entry. */
	private static final byte[] ABSENT = new byte[0];

	/** Keys changed on the local cache while the engine did not answer, oldest first. Guarded by itself. */
	private final Map<Object, ContextReplay> replays = new LinkedHashMap<>();

	ClusterContextCache(String instance, ClusterEngine engine, EngineCalls calls, int capacity, TimeSource timeSource,
			SnapshotCodec codec, ClusterCounters counters) {
		this.instance = instance;
		this.engine = engine;
		this.calls = calls;
		this.timeSource = timeSource;
		this.codec = codec;
		this.counters = counters;
		this.local = new InMemoryRetryContextCache(capacity, timeSource);
		this.empty = RetryContextSnapshot.of(instance, 0, false, null, null, 0, Map.of());
	}

	@Override
	public @Nullable RetryContext get(Object key) {
		String shared = sharedKey(key);
		Lookup lookup = this.calls.call(() -> new Lookup(true, this.engine.getContext(this.instance, shared)),
				() -> Lookup.LOCAL);
		if (!lookup.shared) {
			return this.local.get(key);
		}
		rememberRead(shared, lookup.bytes);
		return decode(shared, lookup.bytes);
	}

	/**
	 * Keeps what a read found, so that the call's write can try a compare-and-set against it without
	 * reading again: one round trip for the write when no other replica wrote in between.
	 */
	private void rememberRead(String shared, byte @Nullable [] bytes) {
		if (this.lastRead.size() >= LAST_READS) {
			this.lastRead.clear();
		}
		this.lastRead.put(shared, (bytes != null) ? bytes : ABSENT);
	}

	@Override
	public void put(Object key, RetryContext context) {
		update(key, current -> context);
	}

	@Override
	public @Nullable RetryContext update(Object key, UnaryOperator<@Nullable RetryContext> update) {
		this.used = true;
		String shared = sharedKey(key);
		long writeId = ThreadLocalRandom.current().nextLong();
		Lookup stored = this.calls.call(caller -> new Lookup(true, compareAndSet(shared, update, writeId, caller)),
				() -> Lookup.LOCAL);
		if (!stored.shared) {
			RetryContext updated = this.local.update(key, update);
			// What this update adds to any stored count: the call's own failures, whatever it read first.
			int added = count(update.apply(this.empty));
			remember(key, updated == null, writeId, added);
			return updated;
		}
		return decode(shared, stored.bytes);
	}

	private static int count(@Nullable RetryContext context) {
		return (context != null) ? context.getRetryCount() : 0;
	}

	/**
	 * Applies {@code update} to the stored entry until no other writer came in between; returns what is
	 * stored. The first try compares with what this replica's last read of the key found, if it has one.
	 * Once the caller has given up, no try starts on what was read: see {@link EngineCalls.Caller}.
	 */
	private byte @Nullable [] compareAndSet(String shared, UnaryOperator<@Nullable RetryContext> update, long writeId,
			EngineCalls.Caller caller) {
		byte[] read = this.lastRead.remove(shared);
		for (;;) {
			byte[] stored = (read != null) ? ((read == ABSENT) ? null : read) : this.engine.getContext(this.instance, shared);
			read = null;
			RetryContextSnapshot current = decode(shared, stored);
			if (current != null && current.hasWrite(writeId)) {
				// The engine applied this write and retried it (a member left before it answered): done.
				return stored;
			}
			if (caller.hasGivenUp()) {
				// Counted locally and owed by the write-back, which may have written it on what was just read.
				return stored;
			}
			RetryContext next = update.apply(current);
			byte[] bytes = (next != null) ? encode(next, current, writeId) : null;
			// Compared with the bytes as stored, so that an entry that could not be decoded is replaced.
			if (this.engine.compareAndSetContext(this.instance, shared, stored, bytes)) {
				return bytes;
			}
		}
	}

	private byte[] encode(RetryContext next, @Nullable RetryContextSnapshot current, long writeId) {
		long firstFailure = (current != null) ? current.getFirstFailureMillis() : this.timeSource.currentTimeMillis();
		return this.codec.encode(RetryContextSnapshot.of(next, firstFailure).withWrite(writeId, current));
	}

	/**
	 * The key's shared form: its string form, or the SHA-256 of that when it is longer than
	 * {@value #MAX_KEY_BYTES} UTF-8 bytes or could be taken for a hashed key.
	 */
	static String sharedKey(Object key) {
		String text = String.valueOf(key);
		// At most 3 UTF-8 bytes per char: most keys are decided without encoding them.
		if (text.length() * 3L <= MAX_KEY_BYTES && !text.startsWith(HASHED)) {
			return text;
		}
		byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
		if (utf8.length <= MAX_KEY_BYTES && !text.startsWith(HASHED)) {
			return text;
		}
		try {
			return HASHED + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(utf8));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

	/**
	 * Decodes what the engine returned; an entry that cannot be decoded is treated as absent and counted.
	 * Runs in the engine's operations too (a compare-and-set decodes what it read), where anything thrown
	 * would count as the engine's failure: the codec throws nothing but {@link IllegalArgumentException}
	 * (and {@link VirtualMachineError}), and any other exception is taken as a bad entry all the same.
	 */
	private @Nullable RetryContextSnapshot decode(String shared, byte @Nullable [] bytes) {
		if (bytes == null) {
			return null;
		}
		try {
			return this.codec.decode(bytes);
		}
		catch (RuntimeException ex) {
			this.counters.undecodable(this.instance, shared, bytes, String.valueOf(ex.getMessage()));
			return null;
		}
	}

	@Override
	public void remove(Object key) {
		String shared = sharedKey(key);
		this.local.remove(key);
		boolean removed = this.calls.call(() -> {
			this.engine.removeContext(this.instance, shared);
			return true;
		}, () -> false);
		if (!removed) {
			remember(key, true, 0, 0);
		}
	}

	/**
	 * Remembers a change made on the local cache, to be written to the engine once it answers again.
	 * @param writeId the write that was sent and not answered in time (it may still be applied)
	 * @param added the failures the change added (and that write carried)
	 */
	private void remember(Object key, boolean removed, long writeId, int added) {
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
				writeBack(sharedKey(key), state, mine, writeId, caller);
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
			RetryContextSnapshot current = decode(shared, stored);
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
			if (this.engine.compareAndSetContext(this.instance, shared, stored, encode(next, current, writeId))) {
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
	int pendingReplays() {
		synchronized (this.replays) {
			return this.replays.size();
		}
	}

	@Override
	public int size() {
		return this.calls.call(() -> this.engine.contextCount(this.instance), this.local::size);
	}

	@Override
	public int capacity() {
		return this.local.capacity();
	}

	/**
	 * The evictions of the local fallback cache and those the engine counted on this replica for the
	 * shared store ({@link ClusterEngine#contextEvictions}): summed over the replicas, every eviction.
	 */
	@Override
	public long evictions() {
		long shared = this.calls.call(() -> this.engine.contextEvictions(this.instance), () -> -1L);
		return this.local.evictions() + this.sharedEvictions.accumulateAndGet(shared, Math::max);
	}

	@Override
	public boolean hasBeenUsed() {
		return this.used;
	}

	@Override
	public void clear() {
		tryClear();
	}

	/**
	 * Clears the local contexts and the changes waiting to be written back (so that no cleared key comes
	 * back), then the shared ones.
	 * @return whether the engine cleared the shared contexts within the timeout
	 */
	@Override
	public boolean tryClear() {
		this.local.clear();
		synchronized (this.replays) {
			this.replays.clear();
		}
		return this.calls.call(() -> {
			this.engine.clearContexts(this.instance);
			return true;
		}, () -> false);
	}

	@Override
	public List<RetryContextCacheEntry> entries(int limit) {
		return this.calls.call(() -> {
			List<RetryContextCacheEntry> entries = new ArrayList<>();
			for (ClusterEngine.StoredContext stored : this.engine.contexts(this.instance, limit)) {
				RetryContextSnapshot snapshot = decode(stored.key(), stored.bytes());
				if (snapshot != null) {
					entries.add(new RetryContextCacheEntry(stored.key(), snapshot, snapshot.getFirstFailureMillis()));
				}
			}
			return entries;
		}, () -> this.local.entries(limit));
	}

	@Override
	public String toString() {
		return "ClusterContextCache[instance=" + this.instance + ", engine=" + this.engine.engineName() + ", capacity="
				+ capacity() + "]";
	}

	/** What the engine answered, or that it did not and the local cache is to be used. */
	private record Lookup(boolean shared, byte @Nullable [] bytes) {

		static final Lookup LOCAL = new Lookup(false, null);

	}

}
