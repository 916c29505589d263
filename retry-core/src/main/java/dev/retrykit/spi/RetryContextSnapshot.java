package dev.retrykit.spi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import dev.retrykit.RetryContext;
import org.jspecify.annotations.Nullable;

/**
 * What a shared context cache stores of a stateful context, so that another replica can continue it:
 * the failed attempts so far, whether it may no longer retry, the last failure's type and message (not
 * the exception: its class may not exist on the other replica), when the first failure happened, and
 * the context's serializable attributes. Immutable and thread-safe; {@link #toBytes()} gives the form
 * an engine stores, so its servers never need the application's classes.
 *
 * @param retryCount the failed attempts so far, 0 or more
 * @param exhaustedOnly whether the context may no longer retry
 * @param lastFailureType the class name of the last failure, or {@code null}
 * @param lastFailureMessage the message of the last failure, or {@code null}
 * @param firstFailureMillis when the first failure was stored (epoch milliseconds)
 * @param attributes the context's attributes whose values are serializable
 */
public record RetryContextSnapshot(int retryCount, boolean exhaustedOnly, @Nullable String lastFailureType,
		@Nullable String lastFailureMessage, long firstFailureMillis, Map<String, Serializable> attributes)
		implements Serializable {

	private static final long serialVersionUID = 1L;

	private static final int FORMAT = 1;

	/**
	 * @throws IllegalArgumentException if {@code retryCount} is negative
	 */
	public RetryContextSnapshot {
		if (retryCount < 0) {
			throw new IllegalArgumentException("Invalid retryCount (" + retryCount + "): must be 0 or greater");
		}
		attributes = Map.copyOf(Objects.requireNonNull(attributes, "attributes must not be null"));
	}

	/**
	 * Takes the snapshot of a context.
	 * @param context the context
	 * @param attributes the attributes to keep (values that are not serializable are left out)
	 * @param nowMillis the time of this failure (epoch milliseconds)
	 * @return the snapshot
	 */
	public static RetryContextSnapshot of(RetryContext context, Map<String, ?> attributes, long nowMillis) {
		Throwable last = context.getLastThrowable();
		String type = (last instanceof RemoteFailureException remote) ? remote.getFailureType()
				: (last != null) ? last.getClass().getName() : null;
		String message = (last instanceof RemoteFailureException remote) ? remote.getFailureMessage()
				: (last != null) ? last.getMessage() : null;
		Map<String, Serializable> kept = new LinkedHashMap<>();
		attributes.forEach((name, value) -> {
			if (value instanceof Serializable serializable) {
				kept.put(name, serializable);
			}
		});
		return new RetryContextSnapshot(context.getRetryCount(), context.isExhaustedOnly(), type, message, nowMillis,
				kept);
	}

	/**
	 * Merges the failures of one call into the stored snapshot, for an atomic update: the counts add up,
	 * so calls on several replicas that started from the same stored snapshot lose no failure and count
	 * none twice.
	 * @param stored the snapshot stored now, or {@code null}
	 * @param addedFailures the failures the call added to the count it started from, or -1 when the call
	 * did not start from a stored snapshot (its snapshot then replaces the stored one)
	 * @return the snapshot to store
	 */
	public RetryContextSnapshot mergeInto(@Nullable RetryContextSnapshot stored, int addedFailures) {
		if (stored == null || addedFailures < 0) {
			return this;
		}
		Map<String, Serializable> merged = new LinkedHashMap<>(stored.attributes);
		merged.putAll(this.attributes);
		return new RetryContextSnapshot(stored.retryCount + addedFailures, stored.exhaustedOnly || this.exhaustedOnly,
				this.lastFailureType, this.lastFailureMessage, Math.min(stored.firstFailureMillis, this.firstFailureMillis),
				merged);
	}

	/**
	 * The context a replica continues from this snapshot; its last failure is a
	 * {@link RemoteFailureException} naming the original type and message.
	 * @param name the instance name
	 * @return a new context
	 */
	public RetryContext toContext(String name) {
		return new SnapshotRetryContext(name, this);
	}

	/**
	 * Encodes the snapshot: its fields in a fixed binary form, the attributes by Java serialization.
	 * @return the bytes
	 * @throws UncheckedIOException if an attribute cannot be serialized
	 */
	public byte[] toBytes() {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeByte(FORMAT);
			out.writeInt(this.retryCount);
			out.writeBoolean(this.exhaustedOnly);
			writeNullable(out, this.lastFailureType);
			writeNullable(out, this.lastFailureMessage);
			out.writeLong(this.firstFailureMillis);
			out.writeBoolean(!this.attributes.isEmpty());
			if (!this.attributes.isEmpty()) {
				ObjectOutputStream objects = new ObjectOutputStream(out);
				objects.writeObject(new LinkedHashMap<>(this.attributes));
				objects.flush();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot encode the retry context snapshot " + this, ex);
		}
		return bytes.toByteArray();
	}

	/**
	 * @param bytes bytes made by {@link #toBytes()}
	 * @return the snapshot
	 * @throws IllegalArgumentException if the bytes are not a snapshot, or an attribute's class is missing
	 */
	@SuppressWarnings("unchecked")
	public static RetryContextSnapshot fromBytes(byte[] bytes) {
		try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
			int format = in.readByte();
			if (format != FORMAT) {
				throw new IllegalArgumentException("Unknown retry context snapshot format " + format + ": expected " + FORMAT);
			}
			int count = in.readInt();
			boolean exhausted = in.readBoolean();
			String type = readNullable(in);
			String message = readNullable(in);
			long first = in.readLong();
			Map<String, Serializable> attributes = Map.of();
			if (in.readBoolean()) {
				attributes = (Map<String, Serializable>) new ObjectInputStream(in).readObject();
			}
			return new RetryContextSnapshot(count, exhausted, type, message, first, attributes);
		}
		catch (IOException | ClassNotFoundException ex) {
			throw new IllegalArgumentException("Cannot decode a retry context snapshot: " + ex, ex);
		}
	}

	private static void writeNullable(DataOutputStream out, @Nullable String value) throws IOException {
		out.writeBoolean(value != null);
		if (value != null) {
			out.writeUTF((value.length() > 8_000) ? value.substring(0, 8_000) : value);
		}
	}

	private static @Nullable String readNullable(DataInputStream in) throws IOException {
		return in.readBoolean() ? in.readUTF() : null;
	}

}
