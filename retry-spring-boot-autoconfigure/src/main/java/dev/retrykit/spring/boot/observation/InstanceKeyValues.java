package dev.retrykit.spring.boot.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

import dev.retrykit.spring.boot.observation.RetryObservationDocumentation.AttemptHighCardinalityKeyNames;
import dev.retrykit.spring.boot.observation.RetryObservationDocumentation.AttemptKeyNames;
import dev.retrykit.spring.boot.observation.RetryObservationDocumentation.CallKeyNames;

/**
 * What the default conventions name and tag an instance's observations with when nothing failed,
 * made once per instance: the contextual names, and the key values of a call (running, or ended per
 * outcome) and of an attempt (running, or ended). With them an observed call builds no string and no
 * key value of its own: the per-call {@code KeyValues}, strings and arrays were most of what
 * {@code ObservedCallBenchmark}'s {@code retrykitObserved} allocated beyond its hand-written floor. A
 * failure's key values depend on the failure and are made when needed. Immutable and thread-safe.
 *
 * <p>While an observation runs, its key values are only those known at its start: {@code name} (and an
 * attempt's {@code hedged}); {@code outcome} and {@code exception} come when it ends. So a long-task
 * timer of running calls is tagged by instance only, not by an outcome that is not there yet.
 */
final class InstanceKeyValues {

	/** The {@code exception} value when there was no failure. */
	static final String NONE = "none";

	/** High-cardinality key values of the first attempts, the same for every instance. */
	private static final KeyValues[] ATTEMPT_NUMBERS = new KeyValues[16];

	static {
		for (int i = 0; i < ATTEMPT_NUMBERS.length; i++) {
			ATTEMPT_NUMBERS[i] = KeyValues.of(AttemptHighCardinalityKeyNames.ATTEMPT.withValue(Integer.toString(i + 1)));
		}
	}

	private static final RetryCallOutcome[] OUTCOMES = RetryCallOutcome.values();

	private static final KeyValue HEDGED = AttemptKeyNames.HEDGED.withValue("true");

	private static final KeyValue NOT_HEDGED = AttemptKeyNames.HEDGED.withValue("false");

	final String retryName;

	final String callContextualName;

	final String attemptContextualName;

	private final KeyValues callRunning;

	/** A running attempt's key values, by hedged (1) or not (0). */
	private final KeyValues[] attemptRunning;

	/** A call's key values by {@link RetryCallOutcome#ordinal()}, exception {@code none}. */
	private final KeyValues[] callEnded;

	/** An ended attempt's key values without failure, by hedged (1) or not (0). */
	private final KeyValues[] attemptEnded;

	InstanceKeyValues(String retryName) {
		this.retryName = retryName;
		this.callContextualName = callContextualName(retryName);
		this.attemptContextualName = attemptContextualName(retryName);
		this.callRunning = callRunning(retryName);
		this.callEnded = new KeyValues[OUTCOMES.length];
		for (RetryCallOutcome outcome : OUTCOMES) {
			this.callEnded[outcome.ordinal()] = call(retryName, outcome.value(), NONE);
		}
		this.attemptRunning = new KeyValues[] { attemptRunning(retryName, false), attemptRunning(retryName, true) };
		this.attemptEnded = new KeyValues[] { attempt(retryName, NONE, false), attempt(retryName, NONE, true) };
	}

	/** {@return a call's key values without failure; {@code null} outcome: while it runs} */
	KeyValues call(@Nullable RetryCallOutcome outcome) {
		return (outcome != null) ? this.callEnded[outcome.ordinal()] : this.callRunning;
	}

	/** {@return an attempt's key values without failure} */
	KeyValues attempt(boolean running, boolean hedged) {
		return (running ? this.attemptRunning : this.attemptEnded)[hedged ? 1 : 0];
	}

	static String callContextualName(String retryName) {
		return "retry " + retryName;
	}

	static String attemptContextualName(String retryName) {
		return "retry " + retryName + " attempt";
	}

	static KeyValues callRunning(String retryName) {
		return KeyValues.of(CallKeyNames.NAME.withValue(retryName));
	}

	static KeyValues call(String retryName, String outcome, String exception) {
		return KeyValues.of(CallKeyNames.NAME.withValue(retryName), CallKeyNames.OUTCOME.withValue(outcome),
				CallKeyNames.EXCEPTION.withValue(exception));
	}

	static KeyValues attemptRunning(String retryName, boolean hedged) {
		return KeyValues.of(AttemptKeyNames.NAME.withValue(retryName), hedged ? HEDGED : NOT_HEDGED);
	}

	static KeyValues attempt(String retryName, String exception, boolean hedged) {
		return KeyValues.of(AttemptKeyNames.NAME.withValue(retryName), AttemptKeyNames.EXCEPTION.withValue(exception),
				hedged ? HEDGED : NOT_HEDGED);
	}

	/** {@return the {@code attempt} key value of an attempt's number} */
	static KeyValues attemptNumber(int attempt) {
		if (attempt >= 1 && attempt <= ATTEMPT_NUMBERS.length) {
			return ATTEMPT_NUMBERS[attempt - 1];
		}
		return KeyValues.of(AttemptHighCardinalityKeyNames.ATTEMPT.withValue(Integer.toString(attempt)));
	}

}
