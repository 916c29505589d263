package dev.retrykit.spring.boot.observation;

import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

import dev.retrykit.spring.boot.observation.RetryObservationDocumentation.CallKeyNames;

/**
 * The default names and keys of the {@code retry.call} observation: name {@code retry.call},
 * contextual (span) name {@code retry <instance>}, low-cardinality keys {@code name}, {@code outcome}
 * and {@code exception}. Stateless and thread-safe; extend it to add or change keys.
 */
public class DefaultRetryObservationConvention implements RetryObservationConvention {

	/** The observation's name, and so its timer's. */
	public static final String NAME = "retry.call";

	/** The {@code exception} value when there was no failure. */
	public static final String NONE = "none";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RetryObservationContext context) {
		return "retry " + context.getRetryName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RetryObservationContext context) {
		RetryCallOutcome outcome = context.getOutcome();
		return KeyValues.of(CallKeyNames.NAME.withValue(context.getRetryName()),
				CallKeyNames.OUTCOME.withValue((outcome != null) ? outcome.value() : "unknown"),
				CallKeyNames.EXCEPTION.withValue(exceptionName(context.getFailure())));
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
