/**
 * The call's vocabulary: {@link dev.retrykit.context.RetryContext}, the state of one retried call, and
 * {@link dev.retrykit.context.CallOutcome}, how it ended. The ground floor of retry-core's packages:
 * policies, extension points and the engine take these types without depending on the assembly
 * ({@code dev.retrykit}) that runs them.
 */
@NullMarked
package dev.retrykit.context;

import org.jspecify.annotations.NullMarked;
