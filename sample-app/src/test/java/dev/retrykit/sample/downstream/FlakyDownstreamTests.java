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

	@Test
	void stragglersAnswerOneCallInEveryLateAndTheOthersAtOnce() {
		this.downstream.stragglers("search", 3, 200);
		FlakyDownstream.Outcome late = new FlakyDownstream.Outcome(200, 0, 200);
		assertThat(java.util.stream.IntStream.rangeClosed(1, 7).mapToObj(call -> this.downstream.next("search")))
			.containsExactly(FlakyDownstream.Outcome.OK, FlakyDownstream.Outcome.OK, late, FlakyDownstream.Outcome.OK,
					FlakyDownstream.Outcome.OK, late, FlakyDownstream.Outcome.OK);
		assertThat(this.downstream.describeStragglers()).containsExactly(entry("search", "one call in 3 answers after 200ms"));
		assertThat(this.downstream.describe()).isEmpty();

		this.downstream.stragglers("search", 0, 200);
		assertThat(this.downstream.describeStragglers()).isEmpty();
		assertThat(this.downstream.next("search")).isEqualTo(FlakyDownstream.Outcome.OK);
	}

	@Test
	void aScriptInForceDecidesBeforeTheStragglers() {
		this.downstream.stragglers("search", 1, 200);
		this.downstream.failNext("search", 1, 503, 0);
		assertThat(this.downstream.next("search")).isEqualTo(new FlakyDownstream.Outcome(503, 0, 0));
		assertThat(this.downstream.next("search")).isEqualTo(new FlakyDownstream.Outcome(200, 0, 200));
	}

	@Test
	void resetRestoresTheConfiguredStragglersOfSearchAndCountsAgainFromOne() {
		FlakyDownstream configured = new FlakyDownstream(2, java.time.Duration.ofMillis(150));
		FlakyDownstream.Outcome late = new FlakyDownstream.Outcome(200, 0, 150);
		assertThat(configured.next("search")).isEqualTo(FlakyDownstream.Outcome.OK);
		configured.stragglers("search", 0, 1);
		configured.stragglers("inventory", 1, 10);
		assertThat(configured.next("search")).isEqualTo(FlakyDownstream.Outcome.OK);

		configured.reset();

		assertThat(configured.describeStragglers()).containsExactly(entry("search", "one call in 2 answers after 150ms"));
		assertThat(configured.next("search")).isEqualTo(FlakyDownstream.Outcome.OK);
		assertThat(configured.next("search")).isEqualTo(late);
		assertThat(configured.next("inventory")).isEqualTo(FlakyDownstream.Outcome.OK);
	}

	@Test
	void rejectsANegativeEveryAndADelayBelowOneMillisecond() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.downstream.stragglers("search", -1, 200))
			.withMessage("Invalid every (-1): must be 1 or more, or 0 for no stragglers");
		assertThatIllegalArgumentException().isThrownBy(() -> this.downstream.stragglers("search", 50, 0))
			.withMessage("Invalid straggler delay (0ms): must be 1ms or more");
		assertThatIllegalArgumentException().isThrownBy(() -> new FlakyDownstream(-5, java.time.Duration.ofMillis(200)))
			.withMessage("Invalid every (-5): must be 1 or more, or 0 for no stragglers");
	}

	private static java.util.Map.Entry<String, String> entry(String key, String value) {
		return java.util.Map.entry(key, value);
	}

}
