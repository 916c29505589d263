package dev.retrykit.spi;

import java.io.Serializable;
import java.util.Map;

import dev.retrykit.RetryContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RetryContextSnapshotTests {

	@Test
	void aSnapshotSurvivesItsBytesWithItsAttributes() {
		RetryContextSnapshot snapshot = new RetryContextSnapshot(3, true, "java.io.IOException", "broken", 1_000L,
				Map.of("order", (Serializable) 42L));
		assertThat(RetryContextSnapshot.fromBytes(snapshot.toBytes())).isEqualTo(snapshot);
	}

	@Test
	void aContinuedContextNamesTheOriginalFailure() {
		RetryContext context = new RetryContextSnapshot(2, false, "java.io.IOException", "broken", 1_000L,
				Map.of("order", (Serializable) "o-1")).toContext("inventory");
		assertThat(context.getRetryCount()).isEqualTo(2);
		assertThat(context.getAttribute("order")).isEqualTo("o-1");
		assertThat(context.getLastThrowable()).isInstanceOfSatisfying(RemoteFailureException.class, failure -> {
			assertThat(failure.getFailureType()).isEqualTo("java.io.IOException");
			assertThat(failure).hasMessage("java.io.IOException: broken");
		});
		RetryContextSnapshot again = RetryContextSnapshot.of(context, Map.of(), 2_000L);
		assertThat(again.lastFailureType()).isEqualTo("java.io.IOException");
		assertThat(again.lastFailureMessage()).isEqualTo("broken");
	}

	@Test
	void mergingAddsTheCallsFailuresToTheStoredCountAndKeepsTheFirstFailureTime() {
		RetryContextSnapshot stored = new RetryContextSnapshot(4, false, "A", null, 1_000L, Map.of());
		RetryContextSnapshot written = new RetryContextSnapshot(2, true, "B", "m", 5_000L, Map.of());
		assertThat(written.mergeInto(stored, 1)).isEqualTo(new RetryContextSnapshot(5, true, "B", "m", 1_000L, Map.of()));
		assertThat(written.mergeInto(stored, -1)).isEqualTo(written);
		assertThat(written.mergeInto(null, 1)).isEqualTo(written);
	}

	@Test
	void bytesThatAreNotASnapshotAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryContextSnapshot.fromBytes(new byte[] { 9 }))
			.withMessageStartingWith("Unknown retry context snapshot format 9");
	}

	@Test
	void aCircuitSignalSurvivesItsStringFormEvenWithBarsInTheCircuitName() {
		CircuitSignal signal = new CircuitSignal("a|b", CircuitSignal.Kind.TRIP, "replica-1");
		assertThat(CircuitSignal.decode(signal.encode())).isEqualTo(signal);
		assertThatIllegalArgumentException().isThrownBy(() -> CircuitSignal.decode("TRIP"))
			.withMessageContaining("expected kind|replica|circuit");
	}

}
