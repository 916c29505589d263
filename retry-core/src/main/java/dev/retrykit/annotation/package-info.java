/**
 * Annotations that the Spring Boot starter turns into retries: {@link dev.retrykit.annotation.Retryable},
 * {@link dev.retrykit.annotation.Backoff}, {@link dev.retrykit.annotation.Recover} and
 * {@link dev.retrykit.annotation.Failback}. They are plain JDK annotations, so code that carries them
 * needs only retry-core; without the starter they do nothing.
 */
@NullMarked
package dev.retrykit.annotation;

import org.jspecify.annotations.NullMarked;
