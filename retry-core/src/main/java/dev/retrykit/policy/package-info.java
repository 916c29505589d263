/**
 * Retry policies: which failures are retried. Includes {@link dev.retrykit.policy.StatusCodes},
 * lists of HTTP or gRPC status codes in Dapr's format.
 */
@NullMarked
package dev.retrykit.policy;

import org.jspecify.annotations.NullMarked;
