package dev.retrykit.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code retry.attempt} observation. Declare a bean of this type to rename it or
 * change its keys, typically by extending {@link DefaultRetryAttemptObservationConvention}.
 * Implementations must be thread-safe.
 */
public interface RetryAttemptObservationConvention extends ObservationConvention<RetryAttemptObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RetryAttemptObservationContext;
	}

}
