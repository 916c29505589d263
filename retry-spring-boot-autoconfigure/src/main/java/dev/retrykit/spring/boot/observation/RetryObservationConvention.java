package dev.retrykit.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code retry.call} observation. Declare a bean of this type to rename it or
 * change its keys, typically by extending {@link DefaultRetryObservationConvention}. Implementations
 * must be thread-safe.
 */
public interface RetryObservationConvention extends ObservationConvention<RetryObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RetryObservationContext;
	}

}
