/**
 * Retry at one layer, on the server side: the servlet filter and the {@code WebFilter} that run each request under
 * the deadline its caller sent ({@code X-Request-Timeout}) and mark the error response of a request during which a
 * retrykit call gave up ({@code X-Retry-Exhausted}), with the request-scoped {@link
 * dev.retrykit.spring.boot.http.server.ExhaustionMarker} and the listener that fills it.
 */
@NullMarked
package dev.retrykit.spring.boot.http.server;

import org.jspecify.annotations.NullMarked;
