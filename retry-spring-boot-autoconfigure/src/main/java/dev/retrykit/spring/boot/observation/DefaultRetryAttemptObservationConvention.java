package dev.retrykit.spring.boot.observation;

import io.micrometer.common.KeyValues;

/**
 * The default names and keys of the {@code retry.attempt} observation: name {@code retry.attempt},
 * contextual (span) name {@code retry <instance> attempt}, low-cardinality keys {@code name},
 * {@code exception} and {@code hedged}, high-cardinality key {@code attempt}; while the attempt runs,
 * {@code exception} is not there yet. Thread-safe; extend it to add or change keys.
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
		InstanceKeyValues keys = context.keys;
		return (keys != null) ? keys.attemptContextualName
				: InstanceKeyValues.attemptContextualName(context.getRetryName());
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RetryAttemptObservationContext context) {
		InstanceKeyValues keys = context.keys;
		Throwable failure = context.getFailure();
		if (keys != null && failure == null) {
			return keys.attempt(context.running, context.isHedged());
		}
		if (context.running) {
			return InstanceKeyValues.attemptRunning(context.getRetryName(), context.isHedged());
		}
		return InstanceKeyValues.attempt(context.getRetryName(), DefaultRetryObservationConvention.exceptionName(failure),
				context.isHedged());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RetryAttemptObservationContext context) {
		return InstanceKeyValues.attemptNumber(context.getAttempt());
	}

}
