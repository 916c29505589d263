/**
 * Reactor support: {@link dev.retrykit.reactor.RetryOperator} retries a {@code Mono} or a {@code Flux}
 * natively, with a {@link dev.retrykit.RetryTemplate} deciding as for every other call (classification,
 * backoff, budget, circuit breaker, counters, events, listeners, recovery). Each attempt is one
 * subscription to the source, made with the downstream subscriber's {@code Context}; a {@code Flux}
 * streams its elements as they arrive, under the downstream's backpressure; waits run on the
 * template's scheduler; cancelling downstream cancels the pending retry and the attempt in flight. On a
 * hedging instance a {@code Mono}'s copies are concurrent subscriptions that race: the first accepted
 * value is emitted and the other copies are cancelled; a {@code Flux} is refused.
 */
@NullMarked
package dev.retrykit.reactor;

import org.jspecify.annotations.NullMarked;
