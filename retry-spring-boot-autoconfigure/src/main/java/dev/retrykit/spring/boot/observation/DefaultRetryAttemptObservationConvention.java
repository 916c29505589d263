package dev.retrykit.spring.boot.observation;

import io.micrometer.common.KeyValues;

import dev.retrykit.spring.boot.observation.RetryObservationDocumentation.AttemptHighCardinalityKeyNames;
import dev.retrykit.spring.boot.observation.RetryObservationDocumentation.AttemptKeyNames;

/**
 * The default names and keys of the {@code retry.attempt} observation: name {@code retry.attempt},
 * contextual (span) name {@code retry <instance> attempt}, low-cardinality keys {@code name} and
 * {@code exception}, high-cardinality key {@code attempt}. Stateless and thread-safe; extend it to add
 * or change keys.
 */
public class DefaultRetryAttemptObservationConvention implements RetryAttemptObservationConvention {

	/** The observation's name, and so its timer's. */
	public static final String NAME = "retry.attempt";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RetryAttemptObservationContext context) {
		return "retry " + context.getRetryName() + " attempt";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RetryAttemptObservationContext context) {
		return KeyValues.of(AttemptKeyNames.NAME.withValue(context.getRetryName()),
				AttemptKeyNames.EXCEPTION.withValue(DefaultRetryObservationConvention.exceptionName(context.getFailure())));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RetryAttemptObservationContext context) {
		return KeyValues.of(AttemptHighCardinalityKeyNames.ATTEMPT.withValue(Integer.toString(context.getAttempt())));
	}

}
