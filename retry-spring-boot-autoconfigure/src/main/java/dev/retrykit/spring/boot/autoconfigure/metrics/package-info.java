/**
 * Auto-configuration of the Micrometer meters: binds a
 * {@link dev.retrykit.spring.boot.metrics.RetryMetricsBinder} to the application's meter registry.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
