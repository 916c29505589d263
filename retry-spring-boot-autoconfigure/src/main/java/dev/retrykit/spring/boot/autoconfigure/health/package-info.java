/**
 * Auto-configuration of the {@code retries} health contributor and its properties
 * ({@code management.health.retries.*}).
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
