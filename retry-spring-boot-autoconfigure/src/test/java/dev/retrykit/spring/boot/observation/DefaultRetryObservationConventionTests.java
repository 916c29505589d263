package dev.retrykit.spring.boot.observation;

import java.io.IOException;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default conventions tag a context the same whether its instance's key values were made once
 * (as the listener's contexts have them) or not (a context made by hand).
 */
class DefaultRetryObservationConventionTests {

	private final InstanceKeyValues keys = new InstanceKeyValues("inventory");

	private final DefaultRetryObservationConvention call = new DefaultRetryObservationConvention();

	private final DefaultRetryAttemptObservationConvention attempt = new DefaultRetryAttemptObservationConvention();

	@Test
	void aCallIsTaggedTheSameWithTheInstancesKeyValuesMadeOnceOrNot() {
		assertThat(callKeys(null, null, this.keys)).isEqualTo(callKeys(null, null, null))
			.isEqualTo(KeyValues.of("name", "inventory"));
		for (RetryCallOutcome outcome : RetryCallOutcome.values()) {
			for (Throwable failure : new Throwable[] { null, new IOException("down") }) {
				assertThat(callKeys(outcome, failure, this.keys)).isEqualTo(callKeys(outcome, failure, null))
					.contains(KeyValue.of("outcome", outcome.value()));
			}
		}
		assertThat(callKeys(RetryCallOutcome.RECOVERED, new IOException("down"), this.keys))
			.isEqualTo(KeyValues.of("name", "inventory", "outcome", "recovered", "exception", "IOException"));
	}

	@Test
	void anAttemptIsTaggedTheSameWithTheInstancesKeyValuesMadeOnceOrNot() {
		for (boolean hedged : new boolean[] { false, true }) {
			for (boolean running : new boolean[] { false, true }) {
				for (Throwable failure : new Throwable[] { null, new IllegalStateException("down") }) {
					assertThat(attemptKeys(running, hedged, failure, this.keys))
						.isEqualTo(attemptKeys(running, hedged, failure, null));
				}
			}
		}
		assertThat(attemptKeys(true, true, null, this.keys)).isEqualTo(KeyValues.of("name", "inventory", "hedged", "true"));
		assertThat(attemptKeys(false, false, null, this.keys))
			.isEqualTo(KeyValues.of("name", "inventory", "exception", "none", "hedged", "false"));
	}

	@Test
	void theContextualNamesAndAttemptNumbersAreTheSameWithTheInstancesKeyValuesMadeOnceOrNot() {
		assertThat(this.call.getContextualName(new RetryObservationContext("inventory", this.keys)))
			.isEqualTo(this.call.getContextualName(new RetryObservationContext("inventory")))
			.isEqualTo("retry inventory");
		assertThat(this.attempt.getContextualName(new RetryAttemptObservationContext("inventory", 1, false, this.keys)))
			.isEqualTo(this.attempt.getContextualName(new RetryAttemptObservationContext("inventory", 1)))
			.isEqualTo("retry inventory attempt");
		for (int number : new int[] { 1, 16, 17, 1000 }) {
			assertThat(this.attempt.getHighCardinalityKeyValues(new RetryAttemptObservationContext("inventory", number)))
				.isEqualTo(KeyValues.of("attempt", Integer.toString(number)));
		}
	}

	private KeyValues callKeys(@Nullable RetryCallOutcome outcome, @Nullable Throwable failure,
			@Nullable InstanceKeyValues keys) {
		RetryObservationContext context = new RetryObservationContext("inventory", keys);
		if (outcome != null) {
			context.setOutcome(outcome);
		}
		context.setFailure(failure);
		return this.call.getLowCardinalityKeyValues(context);
	}

	private KeyValues attemptKeys(boolean running, boolean hedged, @Nullable Throwable failure,
			@Nullable InstanceKeyValues keys) {
		RetryAttemptObservationContext context = new RetryAttemptObservationContext("inventory", 2, hedged, keys);
		context.running = running;
		context.setFailure(failure);
		return this.attempt.getLowCardinalityKeyValues(context);
	}

}
