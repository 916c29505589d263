package dev.retrykit.spi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

/**
 * Encodes {@link RetryContextSnapshot}s into the bytes a {@link ClusterEngine} stores, and decodes
 * what an engine hands back, which anything that can reach the engine may have written.
 *
 * <p>The fixed fields (name, count, exhausted mark, last failure's type and message, first failure
 * time) and attribute values of JDK value types ({@code String}, boxed primitives, {@code byte[]},
 * {@code BigInteger}, {@code BigDecimal}, {@code UUID}, {@code java.time} values, and lists, sets and
 * maps of those) are written in a tagged binary form of retrykit's own that needs no Java
 * deserialization. An attribute of any other class travels only when the codec {@link #allowing allows}
 * its class: by Java serialization, read back through an {@link ObjectInputFilter} that admits the
 * allowed classes and those JDK value types only, and bounds depth, references, array lengths and
 * bytes. Every other attribute stays on its replica and is counted ({@link #withheldAttributes()}).
 *
 * <p>Decoding checks every length against the bytes that are actually there before it allocates
 * anything, and refuses input over {@link #MAX_BYTES}. An attribute that cannot be decoded (a class
 * that is not allowed or missing here, a newer tag) is left out and counted; only when the fixed fields
 * cannot be decoded does {@link #decode} throw. Immutable apart from its counter, and thread-safe.
 */
public final class SnapshotCodec {

	/** The largest encoded snapshot written or read, in bytes. */
	public static final int MAX_BYTES = 64 * 1024;

	/** The most attributes a snapshot carries. */
	public static final int MAX_ATTRIBUTES = 64;

	/** The deepest nesting of lists, sets and maps, and of a serialized object graph. */
	public static final int MAX_DEPTH = 8;

	/** The version of the encoded form. */
	static final int FORMAT = 2;

	/** Classes and package prefixes whose instances Java deserialization may always create. */
	private static final List<String> JDK_VALUE_CLASSES = List.of("java.lang.String", "java.lang.Boolean",
			"java.lang.Byte", "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
			"java.lang.Double", "java.lang.Character", "java.lang.Number", "java.lang.Enum", "java.lang.Record",
			"java.math.BigInteger", "java.math.BigDecimal", "java.util.UUID", "java.util.ArrayList",
			"java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap",
			"java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet", "java.util.CollSer", "java.time.*");

	private final List<String> allowedClasses;

	private final List<String> allowedPrefixes;

	private final LongAdder withheld = new LongAdder();

	private SnapshotCodec(Collection<String> allowed) {
		List<String> classes = new ArrayList<>();
		List<String> prefixes = new ArrayList<>();
		for (String entry : allowed) {
			Objects.requireNonNull(entry, "an allowed class must not be null");
			String name = entry.strip();
			if (name.endsWith(".*") && SnapshotValues.isJavaName(name.substring(0, name.length() - 2))) {
				prefixes.add(name.substring(0, name.length() - 1));
			}
			else if (SnapshotValues.isJavaName(name)) {
				classes.add(name);
			}
			else {
				throw new IllegalArgumentException("Invalid allowed attribute class '" + entry
						+ "': expected a class name (com.example.Order) or a package prefix ending in .* (com.example.*)");
			}
		}
		this.allowedClasses = List.copyOf(classes);
		this.allowedPrefixes = List.copyOf(prefixes);
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
	 * @throws IllegalArgumentException if an entry is neither a class name nor a package prefix
	 */
	public static SnapshotCodec allowing(Collection<String> allowed) {
		return new SnapshotCodec(allowed);
	}

	/**
	 * {@return whether attributes of that class may travel by Java serialization}
	 * @param className a class name
	 */
	public boolean allows(String className) {
		if (this.allowedClasses.contains(className)) {
			return true;
		}
		for (String prefix : this.allowedPrefixes) {
			if (className.startsWith(prefix)) {
				return true;
			}
		}
		return false;
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
		for (String name : snapshot.attributeNames()) {
			byte[] value = encodeValue(snapshot.getAttribute(name));
			byte[] encodedName = SnapshotValues.utf8(name);
			int added = 8 + encodedName.length + ((value != null) ? value.length : 0);
			if (value == null || names.size() == MAX_ATTRIBUTES || size + added > MAX_BYTES) {
				this.withheld.increment();
				continue;
			}
			size += added;
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

	private byte @Nullable [] encodeValue(@Nullable Object value) {
		SnapshotValues.Writer out = new SnapshotValues.Writer();
		if (SnapshotValues.write(out, value, 0)) {
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
	 * format, or their fixed fields cannot be decoded; the message does not repeat the bytes
	 */
	public RetryContextSnapshot decode(byte[] bytes) {
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
		boolean whole = decodeAttributes(in, attributes, values);
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
	private boolean decodeAttributes(ByteBuffer in, int attributes, HashMap<String, Serializable> values) {
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
			Serializable decoded = decodeValue(value);
			if (decoded != null) {
				values.put(attribute, decoded);
			}
			else {
				this.withheld.increment();
			}
		}
		return true;
	}

	private @Nullable Serializable decodeValue(ByteBuffer in) {
		try {
			if (in.get(in.position()) == SnapshotValues.SERIALIZED) {
				in.get();
				ByteBuffer blob = SnapshotValues.readSlice(in);
				return (Serializable) deserialize(blob);
			}
			Object value = SnapshotValues.read(in, 0);
			return (value instanceof Serializable serializable && !in.hasRemaining()) ? serializable : null;
		}
		catch (IllegalArgumentException | BufferUnderflowException | IndexOutOfBoundsException | ClassCastException ex) {
			return null;
		}
	}

	private @Nullable Object deserialize(ByteBuffer blob) {
		byte[] bytes = new byte[blob.remaining()];
		blob.get(bytes);
		try (ObjectInputStream objects = new FilteredObjectInputStream(bytes, this::check)) {
			return objects.readObject();
		}
		catch (IOException | ClassNotFoundException | RuntimeException ex) {
			return null;
		}
	}

	/** The allow-list and limits of Java deserialization. */
	private ObjectInputFilter.Status check(ObjectInputFilter.FilterInfo info) {
		if (info.depth() > MAX_DEPTH || info.references() > 1_000 || info.arrayLength() > MAX_BYTES
				|| info.streamBytes() > MAX_BYTES) {
			return ObjectInputFilter.Status.REJECTED;
		}
		Class<?> type = info.serialClass();
		if (type == null) {
			return ObjectInputFilter.Status.ALLOWED;
		}
		while (type.isArray()) {
			type = type.getComponentType();
		}
		String name = type.getName();
		if (type.isPrimitive() || allows(name) || JDK_VALUE_CLASSES.contains(name) || name.startsWith("java.time.")) {
			return ObjectInputFilter.Status.ALLOWED;
		}
		return ObjectInputFilter.Status.REJECTED;
	}

	@Override
	public String toString() {
		return "SnapshotCodec[allowed=" + this.allowedClasses + ", prefixes=" + this.allowedPrefixes + "]";
	}

	/** Reads with the filter set before the first object, and finds application classes in Boot's fat jars too. */
	private static final class FilteredObjectInputStream extends ObjectInputStream {

		FilteredObjectInputStream(byte[] bytes, ObjectInputFilter filter) throws IOException {
			super(new ByteArrayInputStream(bytes));
			setObjectInputFilter(filter);
		}

		@Override
		protected Class<?> resolveClass(ObjectStreamClass description) throws IOException, ClassNotFoundException {
			try {
				return super.resolveClass(description);
			}
			catch (ClassNotFoundException ex) {
				ClassLoader loader = Thread.currentThread().getContextClassLoader();
				if (loader == null) {
					throw ex;
				}
				try {
					return Class.forName(description.getName(), false, loader);
				}
				catch (ClassNotFoundException notThere) {
					throw new InvalidClassException(description.getName(), "not found on this replica");
				}
			}
		}

	}

}
