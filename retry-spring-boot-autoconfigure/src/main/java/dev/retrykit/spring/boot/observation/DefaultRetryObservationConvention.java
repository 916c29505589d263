package dev.retrykit.spring.boot.observation;

import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * The default names and keys of the {@code retry.call} observation: name {@code retry.call},
 * contextual (span) name {@code retry <instance>}, low-cardinality keys {@code name}, {@code outcome}
 * and {@code exception}; while the call runs (it has no outcome yet), {@code name} only. Thread-safe;
 * extend it to add or change keys.
 */
public class DefaultRetryObservationConvention implements RetryObservationConvention {

	/** The observation's name, and so its timer's. */
	public static final String NAME = "retry.call";

	/** The {@code exception} value when there was no failure. */
	public static final String NONE = InstanceKeyValues.NONE;

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RetryObservationContext context) {
		InstanceKeyValues keys = context.keys;
		return (keys != null) ? keys.callContextualName : InstanceKeyValues.callContextualName(context.getRetryName());
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RetryObservationContext context) {
		RetryCallOutcome outcome = context.getOutcome();
		InstanceKeyValues keys = context.keys;
		Throwable failure = context.getFailure();
		if (keys != null && failure == null) {
			return keys.call(outcome);
		}
		if (outcome == null) {
			return InstanceKeyValues.callRunning(context.getRetryName());
		}
		return InstanceKeyValues.call(context.getRetryName(), outcome.value(), exceptionName(failure));
	}

	/**
	 * The simple class name of a failure, its full name for an anonymous class, or {@code none}.
	 * @param failure the failure, or {@code null}
	 * @return the key's value
	 */
	static String exceptionName(@Nullable Throwable failure) {
		if (failure == null) {
			return NONE;
		}
		String simpleName = failure.getClass().getSimpleName();
		return simpleName.isEmpty() ? failure.getClass().getName() : simpleName;
	}

}
