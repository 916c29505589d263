package dev.retrykit.internal;

import java.io.IOException;

import dev.retrykit.context.CallOutcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retry count, the exhausted-only flag, the outcome and whether the last failure was a result share
 * one int of the context, and the last exception and the last rejected result share a field: each keeps
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

		assertThat(context.getRetryCount()).isEqualTo(67_108_863);
		assertThat(context.getLastResult()).isEqualTo("rejected");
		assertThat(context.getOutcome()).isNull();
		assertThat(context.isExhaustedOnly()).isFalse();
	}

	@Test
	void releaseClearsTheOutcomeWithTheRestSoThatTheNextCallStartsWithNone() {
		MutableRetryContext context = new MutableRetryContext("orders", null);
		context.registerFailure(new IOException("down"), null);
		context.outcome(CallOutcome.FAILED_WITH_RETRY);

		context.release();
		assertThat(context.getRetryCount()).isZero();
		assertThat(context.getLastThrowable()).isNull();
		assertThat(context.getOutcome()).isNull();

		context.outcome(CallOutcome.SUCCESSFUL_WITHOUT_RETRY);
		context.release();
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

	@Test
	void theLastFailureIsEitherTheExceptionOrTheRejectedResult() {
		MutableRetryContext context = new MutableRetryContext("orders", null);
		IOException down = new IOException("down");

		context.registerFailure(null, "busy");
		assertThat(context.getLastResult()).isEqualTo("busy");
		assertThat(context.getLastThrowable()).isNull();

		context.registerFailure(down, null);
		assertThat(context.getLastThrowable()).isSameAs(down);
		assertThat(context.getLastResult()).isNull();

		// A method may return an exception as its value: rejected, it is a result, not the failure's cause.
		context.registerFailure(null, down);
		assertThat(context.getLastResult()).isSameAs(down);
		assertThat(context.getLastThrowable()).isNull();

		context.registerFailure(null, null);
		assertThat(context.getLastResult()).isNull();
		assertThat(context.getLastThrowable()).isNull();
		assertThat(context.getRetryCount()).isEqualTo(4);
	}

	@Test
	void aRejectionOrARestoreAfterARejectedResultMakesTheExceptionTheLastFailure() {
		MutableRetryContext context = new MutableRetryContext("orders", null);
		IllegalStateException open = new IllegalStateException("circuit open");
		context.registerFailure(null, "busy");

		context.rejected(open);
		assertThat(context.getLastThrowable()).isSameAs(open);
		assertThat(context.getLastResult()).isNull();
		assertThat(context.getRetryCount()).isEqualTo(1);

		context.registerFailure(null, "busy");
		context.restore(3, open, true);
		assertThat(context.getLastThrowable()).isSameAs(open);
		assertThat(context.getLastResult()).isNull();
	}

	@Test
	void theParentAndTheAttributesAreKeptThroughReleaseAndResetAndOnlyTheAttributesAreCopied() {
		MutableRetryContext outer = new MutableRetryContext("outer", null);
		MutableRetryContext context = new MutableRetryContext("orders", null);
		assertThat(context.getParent()).isNull();
		assertThat(context.attributeNames()).isEmpty();
		assertThat(context.getAttribute("tenant")).isNull();

		context.setParent(outer);
		context.setAttribute("tenant", "acme");
		assertThat(context.getParent()).isSameAs(outer);
		assertThat(context.hasAttribute("tenant")).isTrue();

		MutableRetryContext copy = context.copy();
		assertThat(copy.getParent()).isNull();
		assertThat(copy.getAttribute("tenant")).isEqualTo("acme");
		copy.setAttribute("tenant", "other");
		assertThat(context.getAttribute("tenant")).isEqualTo("acme");

		context.release();
		assertThat(context.attributeNames()).isEmpty();
		assertThat(context.getParent()).isSameAs(outer);

		context.reset("orders", null);
		assertThat(context.getParent()).isNull();
		context.setAttribute("tenant", "acme");
		context.setAttribute("tenant", null);
		assertThat(context.hasAttribute("tenant")).isFalse();
	}

}
