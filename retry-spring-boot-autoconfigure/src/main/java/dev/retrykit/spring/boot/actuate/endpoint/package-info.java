/**
 * The {@code retries} actuator endpoint, its web extension (status codes, masking of values) and its
 * small response records. Plain classes: the auto-configuration that creates them lives in
 * {@code dev.retrykit.spring.boot.autoconfigure.endpoint}.
 */
@NullMarked
package dev.retrykit.spring.boot.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
