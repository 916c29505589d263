package dev.retrykit.spi;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import dev.retrykit.RetryContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The byte form a distributed map stores, and the circuit signals' string form. */
class RetryContextSnapshotBytesTests {

	@Test
	void aSnapshotSurvivesItsBytesWithItsCountFailureAndSerializableAttributes() {
		Map<String, @Nullable Object> attributes = new HashMap<>();
		attributes.put("order", 42L);
		attributes.put("lock", new Object());
		RetryContextSnapshot snapshot = RetryContextSnapshot.of(new Stored(3, true, attributes), 1_000L);

		RetryContextSnapshot read = RetryContextSnapshot.fromBytes(snapshot.toBytes());

		assertThat(read.getName()).isEqualTo("inventory");
		assertThat(read.getRetryCount()).isEqualTo(3);
		assertThat(read.isExhaustedOnly()).isTrue();
		assertThat(read.getFirstFailureMillis()).isEqualTo(1_000L);
		assertThat(read.attributeNames()).containsExactly("order");
		assertThat(read.getAttribute("order")).isEqualTo(42L);
		assertThat(read.getLastThrowable()).isInstanceOfSatisfying(RetryContextSnapshot.RecordedFailure.class,
				failure -> assertThat(failure.getType()).isEqualTo("java.io.IOException"))
			.hasMessage("java.io.IOException: broken");
		assertThat(RetryContextSnapshot.of(read, 2_000L).getLastFailureType()).isEqualTo("java.io.IOException");
	}

	@Test
	void aSnapshotWithoutFailureOrAttributesSurvivesItsBytes() {
		RetryContextSnapshot read = RetryContextSnapshot
			.fromBytes(RetryContextSnapshot.of(new Stored(0, false, Map.of()), 5L).toBytes());
		assertThat(read.getLastThrowable()).isNull();
		assertThat(read.attributeNames()).isEmpty();
	}

	@Test
	void bytesThatAreNotASnapshotAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryContextSnapshot.fromBytes(new byte[] { 9 }))
			.withMessageStartingWith("Unknown retry context snapshot format 9");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryContextSnapshot.fromBytes(new byte[] { 1 }))
			.withMessageStartingWith("Cannot decode a retry context snapshot");
	}

	@Test
	void aCircuitSignalSurvivesItsStringFormEvenWithBarsInTheCircuitName() {
		CircuitSignal signal = new CircuitSignal("a|b", CircuitSignal.Kind.TRIP, "replica-1");
		assertThat(CircuitSignal.decode(signal.encode())).isEqualTo(signal);
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitSignal.decode("TRIP"))
			.withMessageContaining("expected kind|replica|circuit");
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
