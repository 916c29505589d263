package dev.retrykit.cluster;

import java.util.ArrayList;
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
 * same key running at once on several replicas lose no failure and count none twice. Keys and entries take
 * their shared form from {@link SharedEntries}; an entry that cannot be decoded is treated as absent and
 * replaced by the next write of its key.
 *
 * <p>When the engine is unreachable or slow the cache works on a local in-memory cache of the same
 * capacity, and its {@link ContextJournal} remembers which keys it changed there, to write them back once the
 * engine answers again ({@link #replay()}). A write the caller gave up on at the timeout may still be running: it
 * starts no new try on what it reads then ({@link EngineCalls.Caller}). Thread-safe.
 */
final class ClusterContextCache implements RetryContextCache {

	private final String instance;

	private final ClusterEngine engine;

	private final EngineCalls calls;

	private final SharedEntries entries;

	private final InMemoryRetryContextCache local;

	private final ContextJournal journal;

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

	ClusterContextCache(String instance, ClusterEngine engine, EngineCalls calls, int capacity, TimeSource timeSource,
			SnapshotCodec codec, ClusterCounters counters) {
		this.instance = instance;
		this.engine = engine;
		this.calls = calls;
		this.entries = new SharedEntries(instance, codec, counters, timeSource);
		this.local = new InMemoryRetryContextCache(capacity, timeSource);
		this.journal = new ContextJournal(instance, engine, calls, this.local, this.entries, counters, timeSource);
		this.empty = RetryContextSnapshot.of(instance, 0, false, null, null, 0, Map.of());
	}

	@Override
	public @Nullable RetryContext get(Object key) {
		String shared = SharedEntries.key(key);
		Lookup lookup = this.calls.call(() -> new Lookup(true, this.engine.getContext(this.instance, shared)),
				() -> Lookup.LOCAL);
		if (!lookup.shared) {
			return this.local.get(key);
		}
		rememberRead(shared, lookup.bytes);
		return this.entries.decode(shared, lookup.bytes);
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
		String shared = SharedEntries.key(key);
		long writeId = ThreadLocalRandom.current().nextLong();
		Lookup stored = this.calls.call(caller -> new Lookup(true, compareAndSet(shared, update, writeId, caller)),
				() -> Lookup.LOCAL);
		if (!stored.shared) {
			RetryContext updated = this.local.update(key, update);
			// What this update adds to any stored count: the call's own failures, whatever it read first.
			int added = count(update.apply(this.empty));
			this.journal.remember(key, updated == null, writeId, added);
			return updated;
		}
		return this.entries.decode(shared, stored.bytes);
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
			RetryContextSnapshot current = this.entries.decode(shared, stored);
			if (current != null && current.hasWrite(writeId)) {
				// The engine applied this write and retried it (a member left before it answered): done.
				return stored;
			}
			if (caller.hasGivenUp()) {
				// Counted locally and owed by the write-back, which may have written it on what was just read.
				return stored;
			}
			RetryContext next = update.apply(current);
			byte[] bytes = (next != null) ? this.entries.encode(next, current, writeId) : null;
			// Compared with the bytes as stored, so that an entry that could not be decoded is replaced.
			if (this.engine.compareAndSetContext(this.instance, shared, stored, bytes)) {
				return bytes;
			}
		}
	}

	@Override
	public void remove(Object key) {
		String shared = SharedEntries.key(key);
		this.local.remove(key);
		boolean removed = this.calls.call(() -> {
			this.engine.removeContext(this.instance, shared);
			return true;
		}, () -> false);
		if (!removed) {
			this.journal.remember(key, true, 0, 0);
		}
	}

	/**
	 * Writes the changes made on the local cache during a fallback to the engine, until it does not answer; called
	 * when the engine answers again.
	 */
	void replay() {
		this.journal.replay();
	}

	/** @return how many keys changed on local state wait to be written to the engine */
	int pendingReplays() {
		return this.journal.pending();
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
		this.journal.clear();
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
				RetryContextSnapshot snapshot = this.entries.decode(stored.key(), stored.bytes());
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
