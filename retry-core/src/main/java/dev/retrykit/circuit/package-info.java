/**
 * A circuit breaker with Dapr's semantics: it opens when a trip expression over its counts becomes
 * true, rejects calls while open, lets a few trial calls through once its timeout has passed
 * (half-open) and closes again when they succeed.
 *
 * <p>{@link dev.retrykit.circuit.CircuitBreaker} works on its own or inside a retry template (each
 * attempt passes the breaker). Its configuration is the immutable
 * {@link dev.retrykit.circuit.CircuitBreakerConfig}; its trip condition is a
 * {@link dev.retrykit.circuit.TripExpression}. Time comes only from an injected
 * {@link dev.retrykit.spi.TimeSource}: the breaker never sleeps and starts no threads.
 */
@NullMarked
package dev.retrykit.circuit;

import org.jspecify.annotations.NullMarked;
