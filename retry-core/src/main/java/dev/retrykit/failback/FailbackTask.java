package dev.retrykit.failback;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a failback task. Immutable.
 *
 * @param key the task's key
 * @param task the operation, so that a task returned by shutdown can be resubmitted elsewhere
 * @param attempts attempts made so far
 * @param lastErrorType the class name of the last failure, or {@code null}
 * @param lastErrorMessage the last failure's message, or {@code null}; cut after 256 characters and
 * marked {@code "... [truncated from N characters]"}, as in {@link dev.retrykit.RetryEvent}; may be
 * sensitive
 * @param submittedAt when it was first submitted
 * @param nextAttemptAt when the next attempt is due, or {@code null} when exhausted
 */
public record FailbackTask(Object key, Runnable task, int attempts, @Nullable String lastErrorType,
		@Nullable String lastErrorMessage, Instant submittedAt, @Nullable Instant nextAttemptAt) {
}
