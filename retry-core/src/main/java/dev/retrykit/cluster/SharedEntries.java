package dev.retrykit.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.retrykit.context.RetryContext;
import dev.retrykit.spi.RetryContextSnapshot;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The shared form of one instance's context cache: keys as the engine stores them, and entries encoded by the
 * cluster's {@link SnapshotCodec}. Keys are shared in their {@code toString()} form, which must therefore be the same
 * on every replica; a key whose form is longer than {@value #MAX_KEY_BYTES} bytes in UTF-8 (or starts with
 * {@code sha256:}) is shared as {@code sha256:} and the lowercase hex SHA-256 of those bytes, so that a caller's key
 * can never make an entry of the store unbounded. An entry the codec cannot decode (garbage, a newer format, an
 * attribute class missing here) is treated as absent, counted and logged once per key; it never counts as a
 * failure of the engine: the engine answered, the entry is bad, and the next write of its key replaces it.
 * Thread-safe.
 * @param instance the instance's name
 * @param codec the cluster's codec
 * @param counters counts (and logs) the entries that cannot be decoded
 * @param timeSource stamps a key's first failure
 */
record SharedEntries(String instance, SnapshotCodec codec, ClusterCounters counters, TimeSource timeSource) {

	/** The longest key, in UTF-8 bytes, shared as it is; a longer one is shared as its SHA-256. */
	static final int MAX_KEY_BYTES = 1024;

	/** What starts the shared form of a hashed key; a key that starts so itself is hashed too. */
	private static final String HASHED = "sha256:";

	/**
	 * The key's shared form: its string form, or the SHA-256 of that when it is longer than
	 * {@value #MAX_KEY_BYTES} UTF-8 bytes or could be taken for a hashed key.
	 */
	static String key(Object key) {
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
	 * The entry to store for a context that replaces {@code current}, marked with the write that stores it.
	 * @param next the context to store
	 * @param current what is stored now, or {@code null}: the first failure's time is kept from it
	 * @param writeId the write, so that a retried write finds itself applied
	 * @return the encoded entry
	 */
	byte[] encode(RetryContext next, @Nullable RetryContextSnapshot current, long writeId) {
		long firstFailure = (current != null) ? current.getFirstFailureMillis() : this.timeSource.currentTimeMillis();
		return this.codec.encode(RetryContextSnapshot.of(next, firstFailure).withWrite(writeId, current));
	}

	/**
	 * Decodes what the engine returned; an entry that cannot be decoded is treated as absent and counted.
	 * Runs in the engine's operations too (a compare-and-set decodes what it read), where anything thrown
	 * would count as the engine's failure: the codec throws nothing but {@link IllegalArgumentException}
	 * (and {@link VirtualMachineError}), and any other exception is taken as a bad entry all the same.
	 * @param shared the key's shared form
	 * @param bytes the stored entry, or {@code null} for none
	 * @return the entry, or {@code null} when there is none or it cannot be decoded
	 */
	@Nullable RetryContextSnapshot decode(String shared, byte @Nullable [] bytes) {
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

}
