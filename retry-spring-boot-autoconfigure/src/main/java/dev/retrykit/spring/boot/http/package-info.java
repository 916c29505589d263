/**
 * Spring HTTP client integration: status codes and {@code Retry-After} headers read from
 * {@code RestClientResponseException} and, when WebFlux is present, {@code WebClientResponseException}.
 */
@NullMarked
package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.NullMarked;
