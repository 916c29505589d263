package dev.retrykit.spring.boot.autoconfigure.observation;

import dev.retrykit.RetryRegistry;
import dev.retrykit.spring.boot.observation.RetryAttemptObservationConvention;
import dev.retrykit.spring.boot.observation.RetryObservationConvention;
import dev.retrykit.spring.boot.observation.RetryObservationCustomizer;
import dev.retrykit.spring.boot.observation.RetryObservationListener;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code retry.call} and {@code retry.attempt} observations: a
 * {@link RetryObservationCustomizer} that registers a {@link RetryObservationListener} on every
 * instance whose observations are on.
 *
 * <p>Active when Micrometer's Observation API is on the class path and both an
 * {@link ObservationRegistry} and a {@link RetryRegistry} bean exist. Boot's conventions apply:
 * {@code management.observations.enable.retry=false} (Boot's predicate over the observation name's
 * prefixes) turns both observations off and then no listener is registered at all, as with a no-op
 * registry; a {@link RetryObservationConvention} or {@link RetryAttemptObservationConvention} bean
 * renames or re-tags them. Ordered by class name, so that Boot's observation module is not needed at
 * compile time.
 */
@AutoConfiguration(afterName = { "dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration",
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, RetryRegistry.class })
public final class RetryObservationAutoConfiguration {

	/**
	 * The listener is deliberately not a {@code RetryListener} bean: those apply to every instance,
	 * while this one is registered only where observations are on.
	 */
	@Bean
	@ConditionalOnMissingBean
	RetryObservationCustomizer retryObservationCustomizer(ObservationRegistry observationRegistry,
			ObjectProvider<RetryObservationConvention> callConvention,
			ObjectProvider<RetryAttemptObservationConvention> attemptConvention) {
		return new RetryObservationCustomizer(new RetryObservationListener(observationRegistry,
				callConvention.getIfUnique(), attemptConvention.getIfUnique()));
	}

}
