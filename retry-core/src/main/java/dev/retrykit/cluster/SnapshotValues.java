package dev.retrykit.cluster;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The tagged binary form of JDK value types in a {@link SnapshotCodec encoded snapshot}: a tag byte,
 * then the value. Reading checks every length and count against the bytes left before allocating, the
 * nesting of lists, sets and maps against {@link SnapshotCodec#MAX_DEPTH}, the entries of a set or map
 * against {@link SnapshotCodec#MAX_ENTRIES} and the elements of all of them against an
 * {@link ElementBudget} of {@link SnapshotCodec#MAX_ELEMENTS} per snapshot, so that elements crafted to
 * share one hash code cost at most a few thousand comparisons; a {@code BigDecimal}'s scale is bounded by
 * {@link #MAX_DECIMAL_SCALE}. Writing keeps to the same bounds. Reading throws
 * {@link IllegalArgumentException} or {@link java.nio.BufferUnderflowException} on anything else.
 */
final class SnapshotValues {

	static final byte NULL = 0;

	static final byte STRING = 1;

	static final byte BOOLEAN = 2;

	static final byte BYTE = 3;

	static final byte SHORT = 4;

	static final byte INT = 5;

	static final byte LONG = 6;

	static final byte FLOAT = 7;

	static final byte DOUBLE = 8;

	static final byte CHAR = 9;

	static final byte BYTES = 10;

	static final byte LIST = 11;

	static final byte SET = 12;

	static final byte MAP = 13;

	/** A value read back from its text: {@code java.time} values, UUID, BigInteger, BigDecimal. */
	static final byte TEXT_VALUE = 14;

	/** Java serialization of a class the codec allows. */
	static final byte SERIALIZED = 30;

	/** The tags of the types whose value is written as is, by their class. */
	private static final Map<Class<?>, Byte> SCALAR_TAGS = Map.of(String.class, STRING, Boolean.class, BOOLEAN,
			Byte.class, BYTE, Short.class, SHORT, Integer.class, INT, Long.class, LONG, Float.class, FLOAT,
			Double.class, DOUBLE, Character.class, CHAR, byte[].class, BYTES);

	/**
	 * The largest scale, either way, of a {@code BigDecimal}: {@code 1E-999999999} parses from 12
	 * characters, and its plain string, or a {@code setScale} on it, would take a gigabyte.
	 */
	static final int MAX_DECIMAL_SCALE = 1024;

	/** The longest text of a {@link #TEXT_VALUE}. */
	private static final int MAX_TEXT_VALUE = 256;

	/** The types kept as text, by the index written after {@link #TEXT_VALUE}, with how each is read back. */
	private static final List<Class<?>> TEXT_TYPES = List.of(Instant.class, Duration.class, LocalDate.class,
			LocalTime.class, LocalDateTime.class, OffsetDateTime.class, ZonedDateTime.class, UUID.class,
			BigInteger.class, BigDecimal.class);

	private static final List<Function<String, Object>> TEXT_PARSERS = List.of(Instant::parse, Duration::parse,
			LocalDate::parse, LocalTime::parse, LocalDateTime::parse, OffsetDateTime::parse, ZonedDateTime::parse,
			UUID::fromString, BigInteger::new, BigDecimal::new);

	private SnapshotValues() {
	}

	/** @return whether {@code name} is a dotted Java name (a class name, maybe nested with {@code $}) */
	static boolean isJavaName(String name) {
		if (name.isEmpty() || name.length() > 512) {
			return false;
		}
		for (String part : name.split("\\.", -1)) {
			if (part.isEmpty() || !Character.isJavaIdentifierStart(part.charAt(0))
					|| !part.chars().allMatch(Character::isJavaIdentifierPart)) {
				return false;
			}
		}
		return true;
	}

	static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Writes a value of a JDK value type.
	 * @return {@code false}, with nothing useful written, if the value or one of its elements is of
	 * another type or nested too deep
	 */
	static boolean write(Writer out, @Nullable Object value, int depth, ElementBudget budget) {
		Byte scalar = (value != null) ? SCALAR_TAGS.get(value.getClass()) : null;
		if (value == null) {
			out.writeByte(NULL);
		}
		else if (scalar != null) {
			out.writeByte(scalar);
			writeScalar(out, scalar, value);
		}
		else if (TEXT_TYPES.contains(value.getClass())) {
			if (value instanceof BigDecimal decimal && Math.abs(decimal.scale()) > MAX_DECIMAL_SCALE) {
				return false;
			}
			out.writeByte(TEXT_VALUE);
			out.writeByte(TEXT_TYPES.indexOf(value.getClass()));
			out.writeString(value.toString());
		}
		else if (value instanceof Collection<?> collection && (value instanceof List || value instanceof Set)) {
			if (depth >= SnapshotCodec.MAX_DEPTH || value instanceof Set && collection.size() > SnapshotCodec.MAX_ENTRIES
					|| !budget.tryTake(collection.size())) {
				return false;
			}
			out.writeByte((value instanceof List) ? LIST : SET);
			out.writeInt(collection.size());
			for (Object element : collection) {
				if (!write(out, element, depth + 1, budget)) {
					return false;
				}
			}
		}
		else if (value instanceof Map<?, ?> map) {
			if (depth >= SnapshotCodec.MAX_DEPTH || map.size() > SnapshotCodec.MAX_ENTRIES || !budget.tryTake(map.size())) {
				return false;
			}
			out.writeByte(MAP);
			out.writeInt(map.size());
			for (Map.Entry<?, ?> entry : map.entrySet()) {
				if (!write(out, entry.getKey(), depth + 1, budget) || !write(out, entry.getValue(), depth + 1, budget)) {
					return false;
				}
			}
		}
		else {
			return false;
		}
		return true;
	}

	/** Writes the value of a type in {@link #SCALAR_TAGS}, after its tag; the mirror of {@link #read}. */
	private static void writeScalar(Writer out, byte tag, Object value) {
		switch (tag) {
			case STRING -> out.writeString((String) value);
			case BOOLEAN -> out.writeByte((Boolean) value ? 1 : 0);
			case BYTE -> out.writeByte((Byte) value);
			case SHORT -> out.writeInt((Short) value);
			case INT -> out.writeInt((Integer) value);
			case LONG -> out.writeLong((Long) value);
			case FLOAT -> out.writeInt(Float.floatToRawIntBits((Float) value));
			case DOUBLE -> out.writeLong(Double.doubleToRawLongBits((Double) value));
			case CHAR -> out.writeInt((Character) value);
			default -> out.writeBytes((byte[]) value);
		}
	}

	/** Reads a value {@link #write} wrote. */
	static @Nullable Object read(ByteBuffer in, int depth, ElementBudget budget) {
		byte tag = in.get();
		return switch (tag) {
			case NULL -> null;
			case STRING -> readString(in);
			case BOOLEAN -> in.get() != 0;
			case BYTE -> in.get();
			case SHORT -> (short) in.getInt();
			case INT -> in.getInt();
			case LONG -> in.getLong();
			case FLOAT -> Float.intBitsToFloat(in.getInt());
			case DOUBLE -> Double.longBitsToDouble(in.getLong());
			case CHAR -> (char) in.getInt();
			case BYTES -> readBytes(in);
			case TEXT_VALUE -> readTextValue(in);
			case LIST -> readCollection(in, depth, budget, false);
			case SET -> readCollection(in, depth, budget, true);
			case MAP -> readMap(in, depth, budget);
			default -> throw new IllegalArgumentException("Unknown value tag " + tag);
		};
	}

	private static Object readTextValue(ByteBuffer in) {
		int type = in.get();
		if (type < 0 || type >= TEXT_TYPES.size()) {
			throw new IllegalArgumentException("Unknown text value type " + type);
		}
		String text = readString(in);
		if (text.length() > MAX_TEXT_VALUE) {
			throw new IllegalArgumentException("Text value of " + text.length() + " characters");
		}
		Object value;
		try {
			value = TEXT_PARSERS.get(type).apply(text);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Malformed " + TEXT_TYPES.get(type).getSimpleName());
		}
		if (value instanceof BigDecimal decimal && Math.abs(decimal.scale()) > MAX_DECIMAL_SCALE) {
			throw new IllegalArgumentException("A BigDecimal of scale " + decimal.scale() + ": at most "
					+ MAX_DECIMAL_SCALE + " either way");
		}
		return value;
	}

	private static Object readCollection(ByteBuffer in, int depth, ElementBudget budget, boolean set) {
		int size = readCount(in, depth, 1, set, budget);
		Collection<Object> into = set ? new LinkedHashSet<>() : new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			into.add(read(in, depth + 1, budget));
		}
		return into;
	}

	private static Object readMap(ByteBuffer in, int depth, ElementBudget budget) {
		int size = readCount(in, depth, 2, true, budget);
		Map<Object, Object> map = new LinkedHashMap<>();
		for (int i = 0; i < size; i++) {
			Object key = read(in, depth + 1, budget);
			map.put(key, read(in, depth + 1, budget));
		}
		return map;
	}

	/**
	 * A count of elements that each take at least {@code bytesEach} bytes, checked against what is left,
	 * against {@link SnapshotCodec#MAX_ENTRIES} when they are hashed, and taken from the budget.
	 */
	private static int readCount(ByteBuffer in, int depth, int bytesEach, boolean hashed, ElementBudget budget) {
		if (depth >= SnapshotCodec.MAX_DEPTH) {
			throw new IllegalArgumentException("Nested deeper than " + SnapshotCodec.MAX_DEPTH);
		}
		int size = in.getInt();
		if (size < 0 || size > in.remaining() / bytesEach) {
			throw new IllegalArgumentException("A count of " + size + " with " + in.remaining() + " bytes left");
		}
		if (hashed && size > SnapshotCodec.MAX_ENTRIES) {
			throw new IllegalArgumentException("A set or map of " + size + " entries: at most " + SnapshotCodec.MAX_ENTRIES);
		}
		if (!budget.tryTake(size)) {
			throw new IllegalArgumentException("More than " + SnapshotCodec.MAX_ELEMENTS + " elements in one snapshot");
		}
		return size;
	}

	/**
	 * How many more elements of lists, sets and maps one snapshot may hold (a map entry counts as one).
	 * Not thread-safe: one per snapshot encoded or decoded.
	 */
	static final class ElementBudget {

		private int left;

		ElementBudget(int left) {
			this.left = left;
		}

		/** {@return whether {@code count} more elements fit, taking them if they do} */
		boolean tryTake(int count) {
			if (count > this.left) {
				return false;
			}
			this.left -= count;
			return true;
		}

		int left() {
			return this.left;
		}

	}

	/** A length, checked against the bytes left, then that many bytes. */
	static ByteBuffer readSlice(ByteBuffer in) {
		int length = in.getInt();
		if (length < 0 || length > in.remaining()) {
			throw new IllegalArgumentException("A length of " + length + " with " + in.remaining() + " bytes left");
		}
		ByteBuffer slice = in.slice(in.position(), length);
		in.position(in.position() + length);
		return slice;
	}

	static byte[] readBytes(ByteBuffer in) {
		ByteBuffer slice = readSlice(in);
		byte[] bytes = new byte[slice.remaining()];
		slice.get(bytes);
		return bytes;
	}

	static String readString(ByteBuffer in) {
		return new String(readBytes(in), StandardCharsets.UTF_8);
	}

	static @Nullable String readNullableString(ByteBuffer in) {
		return (in.get() != 0) ? readString(in) : null;
	}

	/** Appends big-endian values to a growing array. Not thread-safe. */
	static final class Writer {

		private byte[] bytes = new byte[64];

		private int size;

		private void ensure(int more) {
			if (this.size + more > this.bytes.length) {
				this.bytes = Arrays.copyOf(this.bytes, Math.max(this.bytes.length * 2, this.size + more));
			}
		}

		void writeByte(int value) {
			ensure(1);
			this.bytes[this.size++] = (byte) value;
		}

		void writeInt(int value) {
			ensure(4);
			ByteBuffer.wrap(this.bytes, this.size, 4).putInt(value);
			this.size += 4;
		}

		void writeLong(long value) {
			ensure(8);
			ByteBuffer.wrap(this.bytes, this.size, 8).putLong(value);
			this.size += 8;
		}

		/** A length, then the bytes. */
		void writeBytes(byte[] value) {
			writeInt(value.length);
			ensure(value.length);
			System.arraycopy(value, 0, this.bytes, this.size, value.length);
			this.size += value.length;
		}

		void writeString(String value) {
			writeBytes(utf8(value));
		}

		void writeNullableString(@Nullable String value) {
			writeByte((value != null) ? 1 : 0);
			if (value != null) {
				writeString(value);
			}
		}

		int size() {
			return this.size;
		}

		byte[] toByteArray() {
			return Arrays.copyOf(this.bytes, this.size);
		}

	}

}
