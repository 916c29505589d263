/**
 * Auto-configuration of the observations of retried calls.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
