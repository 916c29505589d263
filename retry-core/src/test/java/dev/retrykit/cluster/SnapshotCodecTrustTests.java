package dev.retrykit.cluster;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.retrykit.spi.RetryContextSnapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** What a member or a client with write rights may plant in the shared store, and what the allow-list admits. */
class SnapshotCodecTrustTests {

	private final SnapshotCodec codec = SnapshotCodec.jdkValuesOnly();

	private static <T> T withContextLoader(ClassLoader loader, Supplier<T> action) {
		Thread thread = Thread.currentThread();
		ClassLoader before = thread.getContextClassLoader();
		thread.setContextClassLoader(loader);
		try {
			return action.get();
		}
		finally {
			thread.setContextClassLoader(before);
		}
	}

	@Test
	void aClassOutsideTheAllowListIsRefusedByNameBeforeAnyLoaderIsAskedForIt() {
		PlantedBytes.RecordingLoader loader = PlantedBytes.unlinkableLoader();
		byte[] planted = PlantedBytes.snapshotWithSerializedAttribute("payments", 2, "order",
				PlantedBytes.serializedObjectNamed(PlantedBytes.UNLINKABLE));

		RetryContextSnapshot read = withContextLoader(loader, () -> this.codec.decode(planted));

		assertThat(loader.asked).doesNotContain(PlantedBytes.UNLINKABLE);
		assertThat(read.getRetryCount()).isEqualTo(2);
		assertThat(read.attributeNames()).isEmpty();
		assertThat(this.codec.withheldAttributes()).isEqualTo(1);
	}

	@Test
	void anAllowedClassThatCannotBeLinkedMakesTheEntryUndecodableInsteadOfThrowingAnError() {
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of("dev.retrykit.planted.*"));
		byte[] planted = PlantedBytes.snapshotWithSerializedAttribute("payments", 2, "order",
				PlantedBytes.serializedObjectNamed(PlantedBytes.UNLINKABLE));

		assertThatIllegalArgumentException()
			.isThrownBy(() -> withContextLoader(PlantedBytes.unlinkableLoader(), () -> allowing.decode(planted)))
			.withMessageContaining("NoClassDefFoundError");
	}

	@Test
	void anErrorFromAnAllowedClassesReadObjectMakesTheEntryUndecodableButRunningOutOfMemoryOrStackIsNotHidden() {
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of(Throwing.class.getName()));
		byte[] bytes = allowing.encode(RetryContextSnapshot.of("payments", 1, false, null, null, 1L,
				Map.of("order", new Throwing())));

		Throwing.error = () -> new ExceptionInInitializerError("planted");
		assertThatIllegalArgumentException().isThrownBy(() -> allowing.decode(bytes))
			.withMessageContaining("ExceptionInInitializerError");
		Throwing.error = () -> new InternalError("length is odd");
		assertThatIllegalArgumentException().isThrownBy(() -> allowing.decode(bytes)).withMessageContaining("InternalError");
		Throwing.error = () -> new OutOfMemoryError("the JVM's own");
		assertThatExceptionOfType(OutOfMemoryError.class).isThrownBy(() -> allowing.decode(bytes));
		Throwing.error = StackOverflowError::new;
		assertThatExceptionOfType(StackOverflowError.class).isThrownBy(() -> allowing.decode(bytes));
	}

	@Test
	void aMapOfOddLengthInTheJdksOwnSerialFormIsAnUndecodableEntryNotAnInternalError() throws IOException {
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of(Basket.class.getName()));
		byte[] stream = serialized(new Basket(List.of(), Map.of(), java.util.Set.of(), new Object[0], Map.of("k", List.of(1))));
		// Map.of("k", ...) travels as a CollSer of kind MAPN with an array of 2: patch the array's length to 1.
		int at = indexOf(stream, new byte[] { 0x00, 0x00, 0x00, 0x02, 0x74, 0x00, 0x01, 'k' });
		assertThat(at).isPositive();
		stream[at + 3] = 1;

		assertThatIllegalArgumentException().isThrownBy(() -> allowing.decode(
				PlantedBytes.snapshotWithSerializedAttribute("payments", 1, "basket", stream)));
	}

	private static byte[] serialized(Object value) throws IOException {
		java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
		try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
			out.writeObject(value);
		}
		return bytes.toByteArray();
	}

	private static int indexOf(byte[] bytes, byte[] part) {
		for (int i = 0; i + part.length <= bytes.length; i++) {
			if (java.util.Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
				return i;
			}
		}
		return -1;
	}

	@Test
	void theAllowListRefusesTheJdkWholePackagesAndKnownGadgetsNamingTheEntryAndWhy() {
		for (String entry : List.of("java.*", "java.util.*", "javax.management.*", "jdk.*", "sun.*", "com.sun.*",
				"java.util.HashMap")) {
			assertThatIllegalArgumentException().isThrownBy(() -> SnapshotCodec.allowing(List.of("com.example.Order", entry)))
				.withMessageStartingWith("Invalid allowed attribute class '" + entry + "': ")
				.withMessageContaining("the JDK's packages");
		}
		for (String entry : List.of("org.*", "com.*", "dev.*")) {
			assertThatIllegalArgumentException().isThrownBy(() -> SnapshotCodec.allowing(List.of(entry)))
				.withMessageStartingWith("Invalid allowed attribute class '" + entry + "': ")
				.withMessageContaining("one-segment package prefix");
		}
		for (String entry : List.of("java.lang.reflect.Proxy", "java.rmi.*", "java.rmi.server.RemoteObjectInvocationHandler",
				"java.security.SignedObject", "java.lang.invoke.SerializedLambda")) {
			assertThatIllegalArgumentException().isThrownBy(() -> SnapshotCodec.allowing(List.of(entry)))
				.withMessageStartingWith("Invalid allowed attribute class '" + entry + "': ")
				.withMessageContaining("never allowed");
		}
		assertThat(SnapshotCodec.allowing(List.of("com.example.*", "org.acme.Order")).allows("com.example.orders.Order"))
			.isTrue();
	}

	@Test
	void aProxyIsNeverDecodedAndItsHandlerNeverRuns() {
		Handler.readObjects.set(0);
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of("dev.retrykit.cluster.*"));
		Object proxy = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Shape.class }, new Handler());
		byte[] bytes = allowing.encode(RetryContextSnapshot.of("payments", 3, false, null, null, 1L,
				Map.of("shape", (Serializable) proxy)));

		RetryContextSnapshot read = allowing.decode(bytes);

		assertThat(read.getRetryCount()).isEqualTo(3);
		assertThat(read.attributeNames()).isEmpty();
		assertThat(Handler.readObjects).hasValue(0);
	}

	@Test
	void anAllowedClassHoldingNonEmptyCollectionsAndArraysDecodes() {
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of(Basket.class.getName()));
		Basket basket = new Basket(new ArrayList<>(List.of("a", "b")), new HashMap<>(Map.of("sku", 7)),
				new HashSet<>(List.of("x")), new Object[] { "one", 2L }, Map.of("k", List.of(1, 2)));

		RetryContextSnapshot read = allowing.decode(allowing.encode(RetryContextSnapshot.of("payments", 1, false, null,
				null, 1L, Map.of("basket", basket))));

		assertThat(read.getAttribute("basket")).isInstanceOfSatisfying(Basket.class, decoded -> {
			assertThat(decoded.lines()).containsExactly("a", "b");
			assertThat(decoded.counts()).containsEntry("sku", 7);
			assertThat(decoded.tags()).containsExactly("x");
			assertThat(decoded.extras()).containsExactly("one", 2L);
			assertThat(decoded.nested()).containsEntry("k", List.of(1, 2));
		});
		assertThat(allowing.withheldAttributes()).isZero();
	}

	@Test
	void aSetOfManyListsWithEqualHashCodesIsRefusedBeforeItIsBuilt() {
		byte[] flood = PlantedBytes.snapshotWithRawAttribute("payments", 1, "flood", PlantedBytes.setOfCollidingLists(4_000));
		assertThat(flood.length).isLessThanOrEqualTo(SnapshotCodec.MAX_BYTES);

		RetryContextSnapshot read = this.codec.decode(flood);

		assertThat(read.getRetryCount()).isEqualTo(1);
		assertThat(read.attributeNames()).isEmpty();
		assertThat(this.codec.withheldAttributes()).isEqualTo(1);
		RetryContextSnapshot bounded = this.codec.decode(PlantedBytes.snapshotWithRawAttribute("payments", 1, "set",
				PlantedBytes.setOfCollidingLists(SnapshotCodec.MAX_ENTRIES)));
		assertThat(bounded.getAttribute("set")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.COLLECTION)
			.hasSize(SnapshotCodec.MAX_ENTRIES);
	}

	@Test
	void moreElementsInAllThanTheBoundAreRefused() {
		SnapshotValues.Writer list = new SnapshotValues.Writer();
		list.writeByte(SnapshotValues.LIST);
		list.writeInt(SnapshotCodec.MAX_ELEMENTS + 1);
		for (int i = 0; i <= SnapshotCodec.MAX_ELEMENTS; i++) {
			list.writeByte(SnapshotValues.NULL);
		}
		RetryContextSnapshot read = this.codec.decode(PlantedBytes.snapshotWithRawAttribute("payments", 1, "nulls",
				list.toByteArray()));
		assertThat(read.attributeNames()).isEmpty();
	}

	@Test
	void anArrayOfTooManyElementsIsRefused() {
		SnapshotCodec allowing = SnapshotCodec.allowing(List.of(Basket.class.getName()));
		Basket within = new Basket(List.of(), Map.of(), java.util.Set.of(), new Object[500], Map.of());
		Basket over = new Basket(List.of(), Map.of(), java.util.Set.of(), new Object[SnapshotCodec.MAX_ELEMENTS + 1], Map.of());

		assertThat(allowing.decode(allowing.encode(RetryContextSnapshot.of("payments", 1, false, null, null, 1L,
				Map.of("basket", within)))).attributeNames()).containsExactly("basket");
		assertThat(allowing.decode(allowing.encode(RetryContextSnapshot.of("payments", 1, false, null, null, 1L,
				Map.of("basket", over)))).attributeNames()).isEmpty();
	}

	@Test
	void aDecimalWithAnAbsurdScaleIsRefused() {
		assertThat(decodedDecimal("1E-999999999")).isNull();
		assertThat(decodedDecimal("1E+999999999")).isNull();
		assertThat(decodedDecimal("12.50")).isEqualTo(new BigDecimal("12.50"));
	}

	private @Nullable Object decodedDecimal(String text) {
		SnapshotValues.Writer value = new SnapshotValues.Writer();
		value.writeByte(SnapshotValues.TEXT_VALUE);
		value.writeByte(9);
		value.writeString(text);
		return this.codec.decode(PlantedBytes.snapshotWithRawAttribute("payments", 1, "amount", value.toByteArray()))
			.getAttribute("amount");
	}

	/** Throws the Error it is told to from its readObject. */
	static final class Throwing implements Serializable {

		private static final long serialVersionUID = 1L;

		static volatile Supplier<Error> error = () -> new LinkageError();

		private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
			in.defaultReadObject();
			throw error.get();
		}

	}

	/** An interface of a proxy. */
	interface Shape {

		int sides();

	}

	/** A proxy's handler that records being deserialized. */
	static final class Handler implements InvocationHandler, Serializable {

		private static final long serialVersionUID = 1L;

		static final AtomicInteger readObjects = new AtomicInteger();

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) {
			return 4;
		}

		private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
			in.defaultReadObject();
			readObjects.incrementAndGet();
		}

	}

	/** An allowed class holding JDK collections and arrays. */
	record Basket(List<String> lines, Map<String, Integer> counts, java.util.Set<String> tags, Object[] extras,
			Map<String, List<Integer>> nested) implements Serializable {
	}

}
