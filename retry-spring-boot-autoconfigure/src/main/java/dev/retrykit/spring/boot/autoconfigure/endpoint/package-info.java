/**
 * Auto-configuration of the {@code retries} actuator endpoint and its properties
 * ({@code management.endpoint.retries.*}).
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
