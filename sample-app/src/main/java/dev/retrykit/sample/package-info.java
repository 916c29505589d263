/**
 * A Spring Boot service that calls a scripted flaky downstream through retrykit.
 */
@NullMarked
package dev.retrykit.sample;

import org.jspecify.annotations.NullMarked;
