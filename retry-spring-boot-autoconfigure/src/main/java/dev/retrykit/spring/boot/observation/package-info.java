/**
 * Micrometer observations of retried calls: an observation {@code retry.call} per call and a child
 * {@code retry.attempt} per attempt, recorded by a plain {@link dev.retrykit.RetryListener} with no
 * Boot annotations. See {@link dev.retrykit.spring.boot.observation.RetryObservationDocumentation}.
 */
@NullMarked
package dev.retrykit.spring.boot.observation;

import org.jspecify.annotations.NullMarked;
