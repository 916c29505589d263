package dev.retrykit.sample.downstream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The downstream's script: what each call answers, and what the status page says is in force.
 */
class FlakyDownstreamTests {

	private final FlakyDownstream downstream = new FlakyDownstream();

	@Test
	void failsTheScriptedNumberOfCallsThenAnswers() {
		this.downstream.failNext("inventory", 2, 503, 1);
		assertThat(this.downstream.next("inventory")).isEqualTo(new FlakyDownstream.Outcome(503, 1, 0));
		assertThat(this.downstream.next("inventory")).isEqualTo(new FlakyDownstream.Outcome(503, 1, 0));
		assertThat(this.downstream.next("inventory")).isEqualTo(FlakyDownstream.Outcome.OK);
		assertThat(this.downstream.calls("inventory")).isEqualTo(3);
	}

	@Test
	void statusListsOnlyTheScriptsStillInForce() {
		this.downstream.failNext("inventory", 1, 503, 0);
		this.downstream.slow("shipping", 3000, 1);
		this.downstream.down("audit");
		assertThat(this.downstream.describe()).containsExactly(
				entry("audit", "down"), entry("inventory", "failing next 1 call(s) with 503"),
				entry("shipping", "slow 3000ms for the next 1 call(s)"));
		this.downstream.next("inventory");
		this.downstream.next("shipping");
		assertThat(this.downstream.describe()).containsExactly(entry("audit", "down"));
		this.downstream.up("audit");
		assertThat(this.downstream.describe()).isEmpty();
	}

	@Test
	void slowWithoutCountAnswersEveryCallSlowlyUntilUp() {
		this.downstream.slow("shipping", 3000, -1);
		for (int i = 0; i < 3; i++) {
			assertThat(this.downstream.next("shipping")).isEqualTo(new FlakyDownstream.Outcome(200, 0, 3000));
		}
		assertThat(this.downstream.describe()).containsExactly(entry("shipping", "slow 3000ms"));
		this.downstream.up("shipping");
		assertThat(this.downstream.next("shipping")).isEqualTo(FlakyDownstream.Outcome.OK);
	}

	@Test
	void slowWithCountAnswersThatManyCallsSlowlyThenAtOnce() {
		this.downstream.slow("shipping", 3000, 1);
		assertThat(this.downstream.next("shipping")).isEqualTo(new FlakyDownstream.Outcome(200, 0, 3000));
		assertThat(this.downstream.next("shipping")).isEqualTo(FlakyDownstream.Outcome.OK);
	}

	@Test
	void rejectsACountBelowMinusOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.downstream.slow("shipping", 3000, -2))
			.withMessage("Invalid count (-2): must be -1 (every call) or greater");
	}

	private static java.util.Map.Entry<String, String> entry(String key, String value) {
		return java.util.Map.entry(key, value);
	}

}
