/**
 * Backoff: the delays between attempts. {@link dev.retrykit.backoff.BackoffPolicy} is the built-in,
 * immutable {@link dev.retrykit.spi.BackoffStrategy}; it computes the delay before each retry from a
 * {@link dev.retrykit.backoff.BackoffType} (fixed, exponential, jittered, ...), a delay, a multiplier,
 * a maximum delay and a jitter factor, and is built and validated by a
 * {@link dev.retrykit.backoff.BackoffPolicyBuilder}.
 */
@NullMarked
package dev.retrykit.backoff;

import org.jspecify.annotations.NullMarked;
