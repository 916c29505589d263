package dev.retrykit.internal;

import java.io.IOException;

import dev.retrykit.CallOutcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retry count, the exhausted-only flag and the outcome share one int of the context: each keeps
 * its value whatever the others do.
 */
class MutableRetryContextTests {

	@Test
	void theOutcomeLeavesTheCountAndTheFlagAlone() {
		MutableRetryContext context = new MutableRetryContext("orders", null);
		context.registerFailure(new IOException("down"), null);
		context.setExhaustedOnly();

		for (CallOutcome outcome : CallOutcome.values()) {
			context.outcome(outcome);
			assertThat(context.getOutcome()).isEqualTo(outcome);
			assertThat(context.getRetryCount()).isEqualTo(1);
			assertThat(context.isExhaustedOnly()).isTrue();
		}
	}

	@Test
	void theCountSaturatesWithoutReachingTheOutcome() {
		MutableRetryContext context = new MutableRetryContext("orders", null);
		context.restore(Integer.MAX_VALUE, null, false);
		context.registerFailure(null, "rejected");

		assertThat(context.getRetryCount()).isEqualTo(134_217_727);
		assertThat(context.getOutcome()).isNull();
		assertThat(context.isExhaustedOnly()).isFalse();
	}

	@Test
	void releaseKeepsTheOutcomeAndResetClearsIt() {
		MutableRetryContext context = new MutableRetryContext("orders", null);
		context.registerFailure(new IOException("down"), null);
		context.outcome(CallOutcome.FAILED_WITH_RETRY);

		context.release();
		assertThat(context.getRetryCount()).isZero();
		assertThat(context.getLastThrowable()).isNull();
		assertThat(context.getOutcome()).isEqualTo(CallOutcome.FAILED_WITH_RETRY);

		context.reset("orders", null);
		assertThat(context.getOutcome()).isNull();
	}

	@Test
	void aCopyHasNoOutcomeYet() {
		MutableRetryContext context = new MutableRetryContext("orders", null);
		context.registerFailure(new IOException("down"), null);
		context.outcome(CallOutcome.REJECTED);

		MutableRetryContext copy = context.copy();

		assertThat(copy.getOutcome()).isNull();
		assertThat(copy.getRetryCount()).isEqualTo(1);
	}

}
