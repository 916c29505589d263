package dev.retrykit.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Circuit signals as anything that can publish on the engine's channel may send them. */
class CircuitSignalTests {

	@Test
	void lineAndParagraphSeparatorsAndBidiControlsAreRefusedLikeOtherControlCharacters() {
		String unsafe = "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
		for (char c : unsafe.toCharArray()) {
			String hex = Integer.toHexString(c);
			assertThatIllegalArgumentException().as("U+%s in the circuit name", hex)
				.isThrownBy(() -> CircuitSignal.decode("TRIP|member-1|pricing" + c + "x"))
				.withMessageContaining("control characters");
			assertThatIllegalArgumentException().as("U+%s in the replica id", hex)
				.isThrownBy(() -> new CircuitSignal("pricing", CircuitSignal.Kind.CLOSE, "a" + c));
		}
	}

	@Test
	void lettersOfAnyScriptAreKept() {
		CircuitSignal signal = new CircuitSignal("prix-café-価格", CircuitSignal.Kind.FORCE_OPEN, "réplica-1");
		assertThat(CircuitSignal.decode(signal.encode())).isEqualTo(signal);
	}

}
