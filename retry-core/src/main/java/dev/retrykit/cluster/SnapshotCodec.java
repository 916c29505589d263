package dev.retrykit.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import dev.retrykit.spi.ClusterEngine;
import dev.retrykit.spi.RetryContextSnapshot;
/**
 * Encodes {@link RetryContextSnapshot}s into the bytes a {@link ClusterEngine} stores, and decodes
 * what an engine hands back, which anything that can reach the engine may have written.
 *
 * <p>The fixed fields (name, count, exhausted mark, last failure's type and message, first failure
 * time) and attribute values of JDK value types ({@code String}, boxed primitives, {@code byte[]},
 * {@code BigInteger}, {@code BigDecimal}, {@code UUID}, {@code java.time} values, and lists, sets and
 * maps of those) are written in a tagged binary form of retrykit's own that needs no Java
 * deserialization. An attribute of any other class travels only when the codec {@link #allowing allows}
 * its class: by Java serialization, read back checking each class's name against the allow-list before
 * any class loader is asked for it, then through an {@link java.io.ObjectInputFilter} that admits the
 * allowed classes and those JDK value types only (and the {@code Object[]} and {@code Map.Entry[]} the
 * JDK's collections read themselves into), and bounds depth, references, array lengths and bytes.
 * Proxies never travel. Every other attribute stays on its replica and is counted
 * ({@link #withheldAttributes()}).
 *
 * <p>Decoding checks every length against the bytes that are actually there before it allocates
 * anything, refuses input over {@link #MAX_BYTES}, sets or maps of more than {@link #MAX_ENTRIES}
 * entries, more than {@link #MAX_ELEMENTS} elements in all (so that elements crafted to share a hash
 * code cannot make it slow), and a {@code BigDecimal} of absurd scale. An attribute that is refused
 * (a class not allowed or missing here, a bound passed, a newer tag, an exception from an allowed
 * class's {@code readObject}) is left out and counted. {@link #decode} throws
 * {@link IllegalArgumentException}, and nothing else, when the fixed fields cannot be decoded or when
 * decoding failed otherwise, an {@link Error} included (a class that cannot be linked), but for
 * {@link OutOfMemoryError} and {@link StackOverflowError}: the caller treats the entry as absent.
 * Immutable apart from its counter, and thread-safe.
 */
public final class SnapshotCodec {

	/** The largest encoded snapshot written or read, in bytes. */
	public static final int MAX_BYTES = 64 * 1024;

	/** The most attributes a snapshot carries. */
	public static final int MAX_ATTRIBUTES = 64;

	/** The deepest nesting of lists, sets and maps, and of a serialized object graph. */
	public static final int MAX_DEPTH = 8;

	/** The most entries of one set or map. */
	public static final int MAX_ENTRIES = 256;

	/** The most elements of lists, sets and maps in one snapshot, all counted. */
	public static final int MAX_ELEMENTS = 4096;

	/** The version of the encoded form. */
	static final int FORMAT = 2;

	private final AttributeAllowList allowList;

	private final LongAdder withheld = new LongAdder();

	private SnapshotCodec(Collection<String> allowed) {
		this.allowList = AttributeAllowList.of(allowed);
	}

	/** {@return a codec that lets attributes of JDK value types travel, and no others} */
	public static SnapshotCodec jdkValuesOnly() {
		return new SnapshotCodec(List.of());
	}

	/**
	 * Makes a codec that also lets attributes of the given classes or packages travel.
	 * @param allowed class names ({@code com.example.Order}) and package prefixes ending in {@code .*}
	 * ({@code com.example.*}: the package and its sub-packages) whose attributes may travel too, by Java
	 * serialization
	 * @return the codec
	 * @throws IllegalArgumentException if an entry is neither a class name nor a package prefix, covers
	 * the JDK ({@code java.}, {@code javax.}, {@code jdk.}, {@code sun.}, {@code com.sun.}), is a
	 * one-segment package prefix ({@code org.*}), or names what is never allowed (proxies,
	 * {@code java.rmi.*}, {@code SignedObject}, {@code SerializedLambda}); the message names the entry
	 * and why
	 */
	public static SnapshotCodec allowing(Collection<String> allowed) {
		return new SnapshotCodec(allowed);
	}

	/**
	 * {@return whether attributes of that class may travel by Java serialization}
	 * @param className a class name
	 */
	public boolean allows(String className) {
		return this.allowList.allows(className);
	}

	/** {@return how many attributes stayed behind: not allowed, not serializable, or not decodable here} */
	public long withheldAttributes() {
		return this.withheld.sum();
	}

	/**
	 * Encodes a snapshot for the shared store.
	 * @param snapshot the snapshot
	 * @return its encoded form, at most {@link #MAX_BYTES}; attributes that may not travel, or would
	 * make it longer, are left out and counted
	 */
	public byte[] encode(RetryContextSnapshot snapshot) {
		SnapshotValues.Writer out = new SnapshotValues.Writer();
		out.writeByte(FORMAT);
		out.writeString(snapshot.getName());
		out.writeInt(snapshot.getRetryCount());
		out.writeByte(snapshot.isExhaustedOnly() ? 1 : 0);
		out.writeNullableString(snapshot.getLastFailureType());
		out.writeNullableString(snapshot.getLastFailureMessage());
		out.writeLong(snapshot.getFirstFailureMillis());
		List<byte[]> names = new ArrayList<>();
		List<byte[]> values = new ArrayList<>();
		// The attribute count, and the write ids that follow the attributes.
		int size = out.size() + 8 + 8 * RetryContextSnapshot.MAX_WRITE_IDS;
		int elements = MAX_ELEMENTS;
		for (String name : snapshot.attributeNames()) {
			SnapshotValues.ElementBudget budget = new SnapshotValues.ElementBudget(elements);
			byte[] value = encodeValue(snapshot.getAttribute(name), budget);
			byte[] encodedName = SnapshotValues.utf8(name);
			int added = 8 + encodedName.length + ((value != null) ? value.length : 0);
			if (value == null || names.size() == MAX_ATTRIBUTES || size + added > MAX_BYTES) {
				this.withheld.increment();
				continue;
			}
			size += added;
			elements = budget.left();
			names.add(encodedName);
			values.add(value);
		}
		out.writeInt(names.size());
		for (int i = 0; i < names.size(); i++) {
			out.writeBytes(names.get(i));
			out.writeBytes(values.get(i));
		}
		long[] writeIds = snapshot.getWriteIds();
		out.writeInt(writeIds.length);
		for (long writeId : writeIds) {
			out.writeLong(writeId);
		}
		return out.toByteArray();
	}

	private byte @Nullable [] encodeValue(@Nullable Object value, SnapshotValues.ElementBudget budget) {
		SnapshotValues.Writer out = new SnapshotValues.Writer();
		if (SnapshotValues.write(out, value, 0, budget)) {
			return out.toByteArray();
		}
		if (value instanceof Serializable && allows(value.getClass().getName())) {
			ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
			try (ObjectOutputStream objects = new ObjectOutputStream(bytes)) {
				objects.writeObject(value);
			}
			catch (IOException | RuntimeException ex) {
				// Declares Serializable but holds something that is not: it stays on this replica.
				return null;
			}
			out.writeByte(SnapshotValues.SERIALIZED);
			out.writeBytes(bytes.toByteArray());
			return out.toByteArray();
		}
		return null;
	}

	/**
	 * Decodes a snapshot read from the shared store.
	 * @param bytes what an engine stored
	 * @return the snapshot, without the attributes that could not be decoded (counted); its
	 * {@link RetryContextSnapshot#getLastThrowable()} is a {@link RetryContextSnapshot.RecordedFailure}
	 * @throws IllegalArgumentException if the bytes are longer than {@link #MAX_BYTES}, of another
	 * format, their fixed fields cannot be decoded, or decoding them failed in a way other than a
	 * refusal: an {@link Error} (a class that cannot be linked or initialised, even one allowed; an
	 * {@link InternalError} the JDK's own {@code List.of}/{@code Map.of} serial form throws on a forged
	 * length) or any other exception; the message does not repeat the bytes. Nothing else is thrown but
	 * {@link OutOfMemoryError} and {@link StackOverflowError}: they say the JVM is short of memory or the
	 * caller of stack, not that the entry is bad (decoding is bounded in size and depth so that bytes
	 * cannot cause them), and taking the entry for absent would have the next write replace a good entry
	 */
	public RetryContextSnapshot decode(byte[] bytes) {
		try {
			return decodeBounded(bytes);
		}
		catch (IllegalArgumentException | OutOfMemoryError | StackOverflowError ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// Only the class name: what the error says may repeat what the bytes say.
			throw new IllegalArgumentException("Cannot decode a retry context snapshot: decoding it failed with "
					+ ex.getClass().getName());
		}
	}

	private RetryContextSnapshot decodeBounded(byte[] bytes) {
		if (bytes.length > MAX_BYTES) {
			throw new IllegalArgumentException("Cannot decode a retry context snapshot of " + bytes.length
					+ " bytes: at most " + MAX_BYTES + " are accepted");
		}
		ByteBuffer in = ByteBuffer.wrap(bytes);
		String name;
		int count;
		boolean exhausted;
		String type;
		String message;
		long first;
		int attributes;
		try {
			int format = in.get();
			if (format != FORMAT) {
				throw new IllegalArgumentException("Cannot decode a retry context snapshot of format " + format
						+ ": this replica reads format " + FORMAT);
			}
			name = SnapshotValues.readString(in);
			count = in.getInt();
			exhausted = in.get() != 0;
			type = SnapshotValues.readNullableString(in);
			message = SnapshotValues.readNullableString(in);
			first = in.getLong();
			attributes = in.getInt();
		}
		catch (BufferUnderflowException ex) {
			throw new IllegalArgumentException("Cannot decode a retry context snapshot: its " + bytes.length
					+ " bytes end before its fixed fields do");
		}
		if (count < 0 || type != null && !SnapshotValues.isJavaName(type)) {
			throw new IllegalArgumentException("Cannot decode a retry context snapshot: its retry count (" + count
					+ ") is negative or its failure type is not a class name");
		}
		HashMap<String, Serializable> values = new HashMap<>();
		boolean whole = decodeAttributes(in, attributes, values, new SnapshotValues.ElementBudget(MAX_ELEMENTS));
		RetryContextSnapshot snapshot = RetryContextSnapshot.of(name, count, exhausted, type, message, first, values);
		return whole ? snapshot.withWriteIds(readWriteIds(in)) : snapshot;
	}

	/** The write ids after the attributes; none when they are missing or do not fit the bytes left. */
	private static long[] readWriteIds(ByteBuffer in) {
		if (in.remaining() < 4) {
			return new long[0];
		}
		int count = in.getInt();
		if (count < 0 || count > RetryContextSnapshot.MAX_WRITE_IDS || count * 8L > in.remaining()) {
			return new long[0];
		}
		long[] ids = new long[count];
		for (int i = 0; i < count; i++) {
			ids[i] = in.getLong();
		}
		return ids;
	}

	/** @return whether the attribute section was read to its end, so that what follows it can be read */
	private boolean decodeAttributes(ByteBuffer in, int attributes, HashMap<String, Serializable> values,
			SnapshotValues.ElementBudget budget) {
		if (attributes < 0 || attributes > MAX_ATTRIBUTES || attributes > in.remaining() / 8) {
			this.withheld.increment();
			return false;
		}
		for (int i = 0; i < attributes; i++) {
			String attribute;
			ByteBuffer value;
			try {
				attribute = SnapshotValues.readString(in);
				value = SnapshotValues.readSlice(in);
			}
			catch (IllegalArgumentException | BufferUnderflowException ex) {
				// The attribute section is broken from here on: keep what was read.
				this.withheld.add(attributes - i);
				return false;
			}
			Serializable decoded = decodeValue(value, budget);
			if (decoded != null) {
				values.put(attribute, decoded);
			}
			else {
				this.withheld.increment();
			}
		}
		return true;
	}

	/**
	 * @return the value, or {@code null} when it is refused: a class not allowed or not found here, a
	 * bound passed, a malformed value, or an exception from an allowed class's {@code readObject}; an
	 * {@link Error} is not caught here, it makes the whole entry undecodable
	 */
	private @Nullable Serializable decodeValue(ByteBuffer in, SnapshotValues.ElementBudget budget) {
		try {
			if (in.get(in.position()) == SnapshotValues.SERIALIZED) {
				in.get();
				ByteBuffer blob = SnapshotValues.readSlice(in);
				return (Serializable) deserialize(blob);
			}
			Object value = SnapshotValues.read(in, 0, budget);
			return (value instanceof Serializable serializable && !in.hasRemaining()) ? serializable : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private @Nullable Object deserialize(ByteBuffer blob) {
		byte[] bytes = new byte[blob.remaining()];
		blob.get(bytes);
		try (ObjectInputStream objects = new AllowListObjectInputStream(bytes, this.allowList)) {
			return objects.readObject();
		}
		catch (IOException | ClassNotFoundException | RuntimeException ex) {
			return null;
		}
	}

	@Override
	public String toString() {
		return "SnapshotCodec[" + this.allowList + "]";
	}

}
