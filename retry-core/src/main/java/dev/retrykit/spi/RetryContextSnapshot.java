package dev.retrykit.spi;

import java.io.Serializable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.retrykit.context.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * A serializable copy of what a stateful call leaves for the next call with its key: retry count,
 * exhausted mark, last failure's type and message, first failure time, and the serializable
 * attributes. For a {@link RetryContextCache} whose entries leave the JVM (a distributed map): its
 * {@code put} and {@link RetryContextCache#update update} store {@link #of(RetryContext, long)} of the
 * context they get, its {@code get} returns the snapshot, and the engine continues from it.
 *
 * <p>Within the JVM that made it, {@link #getLastThrowable()} is the original failure; after the
 * snapshot crossed a JVM it is a {@link RecordedFailure} that carries the original's type and message,
 * so that an exhausted call still reports its cause. The message is kept to
 * {@value #MAX_MESSAGE_LENGTH} characters. Attributes whose values are not {@link Serializable} are
 * left out. Immutable and thread-safe: the mutators of {@link RetryContext} throw
 * {@link UnsupportedOperationException} (the engine never changes a cached context).
 *
 * <p>A {@link dev.retrykit.cluster.SnapshotCodec} gives the form a distributed map stores, so that its servers need none of
 * the application's classes and can compare stored values byte for byte in a compare-and-set.
 */
public final class RetryContextSnapshot implements RetryContext, Serializable {

	private static final long serialVersionUID = 1L;

	/** The longest last-failure message kept. */
	public static final int MAX_MESSAGE_LENGTH = 1024;

	/** The instance name. */
	private final String name;

	/** Failed attempts so far. */
	private final int retryCount;

	/** Whether the context can no longer retry. */
	private final boolean exhausted;

	/** The class name of the last failure, or {@code null}. */
	private final @Nullable String lastFailureType;

	/** The last failure's message, bounded by {@link #MAX_MESSAGE_LENGTH}, or {@code null}. */
	private final @Nullable String lastFailureMessage;

	/** When the first failure happened, in epoch milliseconds. */
	private final long firstFailureMillis;

	/** The context's serializable attributes. */
	private final HashMap<String, Serializable> attributes;

	/** The original failure, in the JVM that made the snapshot only. */
	private final transient @Nullable Throwable lastThrowable;

	/** The most write ids a snapshot remembers. */
	public static final int MAX_WRITE_IDS = 16;

	private static final long[] NO_WRITES = {};

	/** The ids of the latest writes that stored this snapshot's key, oldest first. */
	private final long[] writeIds;

	private RetryContextSnapshot(RetryContext context, long firstFailureMillis) {
		this.name = context.getName();
		this.retryCount = context.getRetryCount();
		this.exhausted = context.isExhaustedOnly();
		Throwable last = context.getLastThrowable();
		this.lastThrowable = last;
		this.lastFailureType = (last instanceof RecordedFailure recorded) ? recorded.type
				: (last != null) ? last.getClass().getName() : null;
		String message = (last instanceof RecordedFailure recorded) ? recorded.message
				: (last != null) ? last.getMessage() : null;
		this.lastFailureMessage = (message != null && message.length() > MAX_MESSAGE_LENGTH)
				? message.substring(0, MAX_MESSAGE_LENGTH) : message;
		this.firstFailureMillis = firstFailureMillis;
		this.attributes = new HashMap<>();
		for (String attribute : context.attributeNames()) {
			if (context.getAttribute(attribute) instanceof Serializable value) {
				this.attributes.put(attribute, value);
			}
		}
		this.writeIds = NO_WRITES;
	}

	private RetryContextSnapshot(RetryContextSnapshot snapshot, long[] writeIds) {
		this.name = snapshot.name;
		this.retryCount = snapshot.retryCount;
		this.exhausted = snapshot.exhausted;
		this.lastFailureType = snapshot.lastFailureType;
		this.lastFailureMessage = snapshot.lastFailureMessage;
		this.firstFailureMillis = snapshot.firstFailureMillis;
		this.attributes = snapshot.attributes;
		this.lastThrowable = snapshot.lastThrowable;
		this.writeIds = writeIds;
	}

	private RetryContextSnapshot(String name, int retryCount, boolean exhausted, @Nullable String lastFailureType,
			@Nullable String lastFailureMessage, long firstFailureMillis, HashMap<String, Serializable> attributes) {
		this.name = name;
		this.retryCount = retryCount;
		this.exhausted = exhausted;
		this.lastFailureType = lastFailureType;
		this.lastFailureMessage = lastFailureMessage;
		this.firstFailureMillis = firstFailureMillis;
		this.attributes = attributes;
		this.lastThrowable = null;
		this.writeIds = NO_WRITES;
	}

	/**
	 * {@return the snapshot}
	 * @param context a stateful call's context, as the engine hands it to the cache
	 * @param firstFailureMillis when the key's first failure was stored (epoch milliseconds); a cache
	 * keeps it from the entry it replaces
	 * @throws NullPointerException if {@code context} is {@code null}
	 */
	public static RetryContextSnapshot of(RetryContext context, long firstFailureMillis) {
		return new RetryContextSnapshot(Objects.requireNonNull(context, "context must not be null"), firstFailureMillis);
	}

	/**
	 * A snapshot as decoded from the bytes of a shared store.
	 * @param name the instance name
	 * @param retryCount failed attempts so far
	 * @param exhausted whether the context can no longer retry
	 * @param lastFailureType the class name of the last failure, or {@code null}
	 * @param lastFailureMessage its message, or {@code null}; cut to {@value #MAX_MESSAGE_LENGTH} characters, then
	 * line breaks, other control characters and bidirectional controls shown as Java escapes (backslash, u, four hex digits) (the type
	 * name too), so that a forged entry cannot forge a log line
	 * @param firstFailureMillis when the key's first failure was stored (epoch milliseconds)
	 * @param attributes the attributes, copied
	 * @return the snapshot; its {@link #getLastThrowable()} is a {@link RecordedFailure}
	 */
	public static RetryContextSnapshot of(String name, int retryCount, boolean exhausted, @Nullable String lastFailureType,
			@Nullable String lastFailureMessage, long firstFailureMillis, Map<String, ? extends Serializable> attributes) {
		String message = (lastFailureMessage != null && lastFailureMessage.length() > MAX_MESSAGE_LENGTH)
				? lastFailureMessage.substring(0, MAX_MESSAGE_LENGTH) : lastFailureMessage;
		return new RetryContextSnapshot(Objects.requireNonNull(name, "name must not be null"), retryCount, exhausted,
				printable(lastFailureType), printable(message), firstFailureMillis, new HashMap<>(attributes));
	}

	/**
	 * Text read from a shared store, as an application may log it: each character that could forge a
	 * log line or reorder how one is shown ({@link CircuitSignal#isUnsafe}: line breaks, other controls,
	 * bidirectional controls) becomes its Java escape (backslash, u, four hex digits), so that the text stays readable and
	 * no writer to the store can make a replica log a line of its choosing.
	 */
	private static @Nullable String printable(@Nullable String text) {
		if (text == null) {
			return null;
		}
		int first = 0;
		while (first < text.length() && !CircuitSignal.isUnsafe(text.charAt(first))) {
			first++;
		}
		if (first == text.length()) {
			return text;
		}
		StringBuilder escaped = new StringBuilder(text.length() + 16).append(text, 0, first);
		for (int i = first; i < text.length(); i++) {
			char c = text.charAt(i);
			if (CircuitSignal.isUnsafe(c)) {
				escaped.append(String.format("\\u%04x", (int) c));
			}
			else {
				escaped.append(c);
			}
		}
		return escaped.toString();
	}

	/**
	 * The same snapshot, remembering one more write of its key: a writer that gave up waiting for its
	 * write (the engine was slow) tells by {@link #hasWrite} whether the write was applied after all, so
	 * that it does not apply the same change twice.
	 * @param writeId the id of the write that stores this snapshot
	 * @param previous the snapshot the write replaces, whose write ids are kept (the latest
	 * {@value #MAX_WRITE_IDS} in all), or {@code null}
	 * @return the snapshot with the write id
	 */
	public RetryContextSnapshot withWrite(long writeId, @Nullable RetryContextSnapshot previous) {
		long[] before = (previous != null) ? previous.writeIds : NO_WRITES;
		int kept = Math.min(before.length, MAX_WRITE_IDS - 1);
		long[] ids = new long[kept + 1];
		System.arraycopy(before, before.length - kept, ids, 0, kept);
		ids[kept] = writeId;
		return new RetryContextSnapshot(this, ids);
	}

	/**
	 * The same snapshot with the write ids read back from the store.
	 * @param writeIds write ids as decoded, oldest first; at most {@value #MAX_WRITE_IDS} are kept
	 * @return the same snapshot with those write ids
	 */
	public RetryContextSnapshot withWriteIds(long[] writeIds) {
		int kept = Math.min(writeIds.length, MAX_WRITE_IDS);
		return new RetryContextSnapshot(this, Arrays.copyOfRange(writeIds, writeIds.length - kept, writeIds.length));
	}

	/** {@return the ids of the latest writes that stored this snapshot's key, oldest first} */
	public long[] getWriteIds() {
		return this.writeIds.clone();
	}

	/**
	 * {@return whether that write is among the latest ones that stored this snapshot's key}
	 * @param writeId a write's id
	 */
	public boolean hasWrite(long writeId) {
		for (long id : this.writeIds) {
			if (id == writeId) {
				return true;
			}
		}
		return false;
	}

	/** {@return the class name of the last failure, or {@code null}} */
	public @Nullable String getLastFailureType() {
		return this.lastFailureType;
	}

	/** {@return the last failure's message, at most {@value #MAX_MESSAGE_LENGTH} characters, or {@code null}} */
	public @Nullable String getLastFailureMessage() {
		return this.lastFailureMessage;
	}

	/** {@return when the key's first failure was stored (epoch milliseconds)} */
	public long getFirstFailureMillis() {
		return this.firstFailureMillis;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public int getRetryCount() {
		return this.retryCount;
	}

	@Override
	public @Nullable Throwable getLastThrowable() {
		if (this.lastThrowable != null || this.lastFailureType == null) {
			return this.lastThrowable;
		}
		return new RecordedFailure(this.lastFailureType, this.lastFailureMessage);
	}

	@Override
	public @Nullable RetryContext getParent() {
		return null;
	}

	@Override
	public void setExhaustedOnly() {
		throw immutable();
	}

	@Override
	public boolean isExhaustedOnly() {
		return this.exhausted;
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.attributes.get(name);
	}

	@Override
	public void setAttribute(String name, @Nullable Object value) {
		throw immutable();
	}

	@Override
	public boolean hasAttribute(String name) {
		return this.attributes.containsKey(name);
	}

	@Override
	public Set<String> attributeNames() {
		return Set.copyOf(this.attributes.keySet());
	}

	private UnsupportedOperationException immutable() {
		return new UnsupportedOperationException("A RetryContextSnapshot of '" + this.name
				+ "' is immutable: the engine continues from a copy of it");
	}

	@Override
	public String toString() {
		return "RetryContextSnapshot[name=" + this.name + ", retryCount=" + this.retryCount + ", exhausted="
				+ this.exhausted + ", lastFailureType=" + this.lastFailureType + "]";
	}

	/**
	 * A failure as a snapshot recorded it, once the original stayed behind in another JVM: its type
	 * and message only. Records no stack trace.
	 */
	public static final class RecordedFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		/** The class name of the original failure. */
		private final String type;

		/** The original failure's message, or {@code null}. */
		private final @Nullable String message;

		RecordedFailure(String type, @Nullable String message) {
			super(type + ((message != null) ? ": " + message : ""), null, false, false);
			this.type = type;
			this.message = message;
		}

		/** {@return the class name of the original failure} */
		public String getType() {
			return this.type;
		}

		/** {@return the original failure's message, or {@code null}} */
		public @Nullable String getOriginalMessage() {
			return this.message;
		}

		/**
		 * {@return the original failure's class where this JVM has it, or {@code null}; looked up without
		 * initialising it, in the thread's context class loader, then in retrykit's} The name comes from
		 * the shared store, which whatever can write to it may have forged: compare the class with types
		 * the application declared, never instantiate it (that would run its static initialiser).
		 */
		public @Nullable Class<?> resolveType() {
			ClassLoader context = Thread.currentThread().getContextClassLoader();
			for (ClassLoader loader : new ClassLoader[] { context, RecordedFailure.class.getClassLoader() }) {
				if (loader == null) {
					continue;
				}
				try {
					Class<?> resolved = Class.forName(this.type, false, loader);
					return Throwable.class.isAssignableFrom(resolved) ? resolved : null;
				}
				catch (ClassNotFoundException | LinkageError ex) {
					// Not on this loader: try the next one.
				}
			}
			return null;
		}

		/**
		 * Whether a failure is of a type, deciding a recorded failure by the type it records: so that a
		 * call continued from a snapshot takes the same decisions (not recoverable, which recovery
		 * method) as one continued in the JVM where the failure happened.
		 * @param type the type
		 * @param failure the failure, maybe a {@code RecordedFailure}, or {@code null}
		 * @return whether {@code failure} is, or records, an instance of {@code type}
		 */
		public static boolean isInstance(Class<?> type, @Nullable Throwable failure) {
			if (failure instanceof RecordedFailure recorded && !type.isInstance(failure)) {
				Class<?> original = recorded.resolveType();
				return original != null && type.isAssignableFrom(original);
			}
			return type.isInstance(failure);
		}

	}

}
