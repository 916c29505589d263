/**
 * The retry API: {@link dev.retrykit.RetryTemplate} and its builder, configuration, callbacks,
 * context, state, listeners, metrics and the {@link dev.retrykit.RetryRegistry} of named instances.
 */
@NullMarked
package dev.retrykit;

import org.jspecify.annotations.NullMarked;
