/**
 * Hedged requests ("The Tail at Scale"; gRFC A6's hedging policy): when no answer came within a delay,
 * another copy of the call starts while the first goes on; the first acceptable result wins and the
 * other copies are cancelled. {@link dev.retrykit.hedging.HedgingConfig} is an instance's policy,
 * set with {@link dev.retrykit.RetryConfigBuilder#hedging}. Only for idempotent operations.
 */
@NullMarked
package dev.retrykit.hedging;

import org.jspecify.annotations.NullMarked;
