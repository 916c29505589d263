/**
 * Micrometer binders with no Spring Boot annotations: {@link dev.retrykit.spring.boot.metrics.RetryMetricsBinder}
 * exposes the core's counters as function counters and gauges.
 */
@NullMarked
package dev.retrykit.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
