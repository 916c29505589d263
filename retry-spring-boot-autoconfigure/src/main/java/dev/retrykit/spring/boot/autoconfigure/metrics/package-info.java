/**
 * Micrometer support: {@link dev.retrykit.spring.boot.autoconfigure.metrics.RetryMetricsBinder}, a plain
 * binder that exposes the core's counters as function counters and gauges, and its auto-configuration.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
