/**
 * Actuator support: the {@code retries} endpoint (with its web extension and small response records),
 * the {@code retries} health indicator, and their auto-configurations.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
