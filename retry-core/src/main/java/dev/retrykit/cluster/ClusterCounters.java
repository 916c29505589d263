package dev.retrykit.cluster;

import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.TimeSource;

/**
 * What a replica refused or could not take from the engine, counted, and logged without flooding the
 * log: an undecodable entry once per key (the first {@value #LOGGED_KEYS} keys), a dropped circuit
 * message at most once a minute, with what was received cut short and stripped of control characters.
 * Thread-safe.
 */
final class ClusterCounters {

	private static final System.Logger LOGGER = System.getLogger(RetryCluster.class.getName());

	/** How many keys an undecodable entry is logged for; past them, entries are only counted. */
	static final int LOGGED_KEYS = 1024;

	private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

	private final TimeSource timeSource;

	final LongAdder undecodableEntries = new LongAdder();

	final LongAdder droppedSignals = new LongAdder();

	/** Changes made on local state during a fallback that could not be kept for writing back. */
	final LongAdder replayDropped = new LongAdder();

	/** The keys an undecodable entry was seen for, each with its bytes' hash: counted once per entry, logged once per key. */
	private final Map<String, Integer> undecodableSeen = new ConcurrentHashMap<>();

	private final AtomicLong lastSignalLog = new AtomicLong(Long.MIN_VALUE);

	ClusterCounters(TimeSource timeSource) {
		this.timeSource = timeSource;
	}

	/**
	 * Counts an entry that could not be decoded: once per stored value of a key (for the first
	 * {@value #LOGGED_KEYS} keys; past them, every time it is read), logged once per key.
	 */
	void undecodable(String instance, String key, byte[] bytes, String reason) {
		String id = instance + '\u0000' + key;
		int hash = Arrays.hashCode(bytes);
		if (this.undecodableSeen.size() >= LOGGED_KEYS && !this.undecodableSeen.containsKey(id)) {
			this.undecodableEntries.increment();
			return;
		}
		Integer before = this.undecodableSeen.put(id, hash);
		if (before == null || before != hash) {
			this.undecodableEntries.increment();
		}
		if (before == null) {
			LOGGER.log(Level.WARNING, "Treating the shared retry context of instance '" + printable(instance)
					+ "' with key '" + printable(key) + "' as absent: " + reason
					+ " (the next write replaces it; logged once per key)");
		}
	}

	void droppedSignal(String reason, String received) {
		this.droppedSignals.increment();
		long now = this.timeSource.nanoTime();
		long last = this.lastSignalLog.get();
		if ((last == Long.MIN_VALUE || now - last >= LOG_INTERVAL_NANOS) && this.lastSignalLog.compareAndSet(last, now)) {
			LOGGER.log(Level.WARNING, "Dropped a circuit message (" + reason + "): '" + printable(received)
					+ "'; further ones are counted and logged at most once a minute");
		}
	}

	/** @return {@code text} cut to 100 characters, control, separator and bidi characters replaced by {@code ?} */
	static String printable(String text) {
		StringBuilder out = new StringBuilder(Math.min(text.length(), 101));
		for (int i = 0; i < text.length() && i < 100; i++) {
			char c = text.charAt(i);
			out.append(CircuitSignal.isUnsafe(c) ? '?' : c);
		}
		return (text.length() > 100) ? out.append('…').toString() : out.toString();
	}

}
