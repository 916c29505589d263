package dev.retrykit.cluster;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.context.RetryContext;
import dev.retrykit.spi.CircuitSignal;
import dev.retrykit.spi.RetryContextSnapshot;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The byte form a distributed map stores, read back as an attacker may have written it, and the circuit signals' string form. */
class SnapshotCodecTests {

	private final SnapshotCodec codec = SnapshotCodec.jdkValuesOnly();

	@Test
	void aSnapshotSurvivesItsBytesWithItsCountFailureAndValueAttributes() {
		Map<String, @Nullable Object> attributes = new HashMap<>();
		attributes.put("order", 42L);
		attributes.put("lock", new Object());
		attributes.put("lines", List.of("a", Map.of("sku", 7), Instant.parse("2026-11-25T10:15:30Z")));
		attributes.put("payload", new byte[] { 1, 2, 3 });
		RetryContextSnapshot snapshot = RetryContextSnapshot.of(new Stored(3, true, attributes), 1_000L);

		RetryContextSnapshot read = this.codec.decode(this.codec.encode(snapshot));

		assertThat(read.getName()).isEqualTo("inventory");
		assertThat(read.getRetryCount()).isEqualTo(3);
		assertThat(read.isExhaustedOnly()).isTrue();
		assertThat(read.getFirstFailureMillis()).isEqualTo(1_000L);
		assertThat(read.attributeNames()).containsExactlyInAnyOrder("order", "lines", "payload");
		assertThat(read.getAttribute("order")).isEqualTo(42L);
		assertThat(read.getAttribute("lines")).isEqualTo(List.of("a", Map.of("sku", 7), Instant.parse("2026-11-25T10:15:30Z")));
		assertThat((byte[]) read.getAttribute("payload")).containsExactly(1, 2, 3);
		assertThat(read.getLastThrowable()).isInstanceOfSatisfying(RetryContextSnapshot.RecordedFailure.class,
				failure -> assertThat(failure.getType()).isEqualTo("java.io.IOException"))
			.hasMessage("java.io.IOException: broken");
		assertThat(RetryContextSnapshot.of(read, 2_000L).getLastFailureType()).isEqualTo("java.io.IOException");
	}

	@Test
	void aSnapshotWithoutFailureOrAttributesSurvivesItsBytes() {
		RetryContextSnapshot read = this.codec.decode(this.codec.encode(RetryContextSnapshot.of(new Stored(0, false, Map.of()), 5L)));
		assertThat(read.getLastThrowable()).isNull();
		assertThat(read.attributeNames()).isEmpty();
	}

	@Test
	void anAttributeOfAClassNobodyAllowedIsNeverDeserializedEvenWhenAnotherWriterSerializedIt() {
		Gadget.readObjects.set(0);
		SnapshotCodec writer = SnapshotCodec.allowing(List.of(Gadget.class.getName()));
		byte[] bytes = writer.encode(RetryContextSnapshot.of(new Stored(2, false, Map.of("gadget", new Gadget(), "id", "o-1")), 1L));

		RetryContextSnapshot read = this.codec.decode(bytes);

		assertThat(Gadget.readObjects).as("readObject calls of a class nobody allowed here").hasValue(0);
		assertThat(read.getRetryCount()).isEqualTo(2);
		assertThat(read.attributeNames()).containsExactly("id");
		assertThat(this.codec.withheldAttributes()).isEqualTo(1);
	}

	@Test
	void anAttributeOfAnAllowedClassTravelsByJavaSerialization() {
		Gadget.readObjects.set(0);
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of("dev.retrykit.cluster.*"));
		byte[] bytes = allowing.encode(RetryContextSnapshot.of(new Stored(1, false, Map.of("gadget", new Gadget())), 1L));

		assertThat(allowing.decode(bytes).getAttribute("gadget")).isInstanceOf(Gadget.class);
		assertThat(Gadget.readObjects).hasValue(1);
		assertThat(allowing.withheldAttributes()).isZero();
	}

	@Test
	void anAttributeThatDeclaresSerializableButHoldsSomethingThatIsNotStaysBehindCounted() {
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of(Holder.class.getName()));
		byte[] bytes = allowing.encode(RetryContextSnapshot.of(new Stored(1, false,
				Map.of("listeners", new Holder(new Object()), "id", 7)), 1L));

		RetryContextSnapshot read = allowing.decode(bytes);

		assertThat(read.attributeNames()).containsExactly("id");
		assertThat(allowing.withheldAttributes()).isEqualTo(1);
	}

	@Test
	void aLengthPatchedToAHugeValueIsRefusedWithoutAllocatingIt() {
		byte[] bytes = this.codec.encode(RetryContextSnapshot.of(new Stored(4, false, Map.of("blob", new byte[8])), 1L));
		// The blob's own length prefix: the 4 bytes before its 8 bytes, which the (empty) write ids follow.
		ByteBuffer.wrap(bytes).putInt(bytes.length - 16, 0x7ffffff0);

		RetryContextSnapshot read = this.codec.decode(bytes);

		assertThat(read.getRetryCount()).as("the fixed fields still decode").isEqualTo(4);
		assertThat(read.attributeNames()).isEmpty();
		assertThat(this.codec.withheldAttributes()).isEqualTo(1);
	}

	@Test
	void hugeCountsAndDeepNestingAreRefused() {
		byte[] bytes = this.codec.encode(RetryContextSnapshot.of(new Stored(1, false, Map.of("list", List.of(1, 2))), 1L));
		// The list's element count: after its tag, 4 + 1 + 4 + 1 + 4 bytes before the (empty) write ids.
		ByteBuffer.wrap(bytes).putInt(bytes.length - 18, 0x7ffffff0);
		assertThat(this.codec.decode(bytes).attributeNames()).isEmpty();

		Object nested = "leaf";
		for (int i = 0; i < SnapshotCodec.MAX_DEPTH + 1; i++) {
			nested = List.of(nested);
		}
		RetryContextSnapshot deep = this.codec.decode(this.codec.encode(RetryContextSnapshot.of(new Stored(1, false,
				Map.of("deep", nested)), 1L)));
		assertThat(deep.attributeNames()).isEmpty();
	}

	@Test
	void bytesThatAreNotASnapshotAreRefusedWithoutEchoingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.codec.decode(new byte[] { 9 }))
			.withMessage("Cannot decode a retry context snapshot of format 9: this replica reads format 2");
		assertThatIllegalArgumentException().isThrownBy(() -> this.codec.decode(new byte[] { 1 }))
			.withMessageStartingWith("Cannot decode a retry context snapshot of format 1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.codec.decode(new byte[] { 2, 0, 0 }))
			.withMessageContaining("end before its fixed fields do");
		assertThatIllegalArgumentException().isThrownBy(() -> this.codec.decode(new byte[SnapshotCodec.MAX_BYTES + 1]))
			.withMessageContaining("at most " + SnapshotCodec.MAX_BYTES);
	}

	@Test
	void aSnapshotKeepsTheIdsOfItsLatestWrites() {
		RetryContextSnapshot first = RetryContextSnapshot.of(new Stored(1, false, Map.of("order", "o-1")), 1L).withWrite(7L, null);
		RetryContextSnapshot read = this.codec.decode(this.codec.encode(first));
		assertThat(read.getWriteIds()).containsExactly(7L);
		assertThat(read.getAttribute("order")).isEqualTo("o-1");
		RetryContextSnapshot next = read;
		for (long id = 8; id < 40; id++) {
			next = RetryContextSnapshot.of(new Stored(2, false, Map.of()), 1L).withWrite(id, next);
		}
		assertThat(this.codec.decode(this.codec.encode(next)).getWriteIds()).hasSize(RetryContextSnapshot.MAX_WRITE_IDS)
			.endsWith(39L).doesNotContain(7L);
	}

	@Test
	void anAllowListEntryMustBeAClassOrAPackagePrefix() {
		assertThatIllegalArgumentException().isThrownBy(() -> SnapshotCodec.allowing(List.of("com.example.*.Order")))
			.withMessage("Invalid allowed attribute class 'com.example.*.Order': expected a class name (com.example.Order)"
					+ " or a package prefix ending in .* (com.example.*)");
		assertThat(SnapshotCodec.allowing(List.of("com.example.*")).allows("com.example.orders.Order")).isTrue();
		assertThat(SnapshotCodec.allowing(List.of("com.example.*")).allows("com.examples.Order")).isFalse();
	}

	@Test
	void aRecordedFailureDecidesByTheTypeItRecords() {
		byte[] bytes = this.codec.encode(RetryContextSnapshot.of(new Stored(1, false, Map.of()), 1L));
		Throwable recorded = this.codec.decode(bytes).getLastThrowable();
		assertThat(RetryContextSnapshot.RecordedFailure.isInstance(IOException.class, recorded)).isTrue();
		assertThat(RetryContextSnapshot.RecordedFailure.isInstance(Exception.class, recorded)).isTrue();
		assertThat(RetryContextSnapshot.RecordedFailure.isInstance(IllegalStateException.class, recorded)).isFalse();
	}

	@Test
	void aCircuitSignalSurvivesItsStringFormEvenWithBarsInTheCircuitName() {
		CircuitSignal signal = new CircuitSignal("a|b", CircuitSignal.Kind.TRIP, "replica-1");
		assertThat(CircuitSignal.decode(signal.encode())).isEqualTo(signal);
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitSignal.decode("TRIP"))
			.withMessageContaining("expected kind|replica|circuit");
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitSignal.decode("EXPLODE|r|c"))
			.withMessageContaining("expected kind|replica|circuit");
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitSignal.decode("TRIP|r|c\n[ERROR] forged"))
			.withMessageContaining("control characters");
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitSignal.decode("TRIP|r|" + "c".repeat(600)))
			.withMessage("Invalid circuit signal of 607 characters: at most 512 are accepted");
	}

	/** A class whose readObject has a side effect, as a deserialization gadget has. */
	static final class Gadget implements Serializable {

		private static final long serialVersionUID = 1L;

		static final AtomicInteger readObjects = new AtomicInteger();

		private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
			in.defaultReadObject();
			readObjects.incrementAndGet();
		}

	}

	/** Declares Serializable, holds what is not: as an array of listeners kept in a context does. */
	record Holder(Object held) implements Serializable {
	}

	/** A context as the engine hands it to a cache, with a failure (when it failed) and attributes. */
	private record Stored(int count, boolean exhausted, Map<String, @Nullable Object> attributes) implements RetryContext {

		@Override
		public String getName() {
			return "inventory";
		}

		@Override
		public int getRetryCount() {
			return this.count;
		}

		@Override
		public @Nullable Throwable getLastThrowable() {
			return (this.count > 0) ? new IOException("broken") : null;
		}

		@Override
		public @Nullable RetryContext getParent() {
			return null;
		}

		@Override
		public void setExhaustedOnly() {
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
		}

		@Override
		public boolean hasAttribute(String name) {
			return this.attributes.containsKey(name);
		}

		@Override
		public Set<String> attributeNames() {
			return this.attributes.keySet();
		}

	}

}
