/**
 * JMH benchmarks of retrykit next to the libraries it is measured against: Spring Retry, Spring
 * Framework's {@code org.springframework.core.retry}, Resilience4j and Failsafe.
 *
 * <p>Every library is configured for 3 attempts and no delay between them, so only the retry machinery
 * is measured. Callbacks are built once per state, so no benchmark allocates a lambda of its own per
 * call; what a benchmark allocates is what the library allocates. Each state checks in its
 * {@code @Setup} that every library really retries before anything is measured.
 */
@NullMarked
package dev.retrykit.benchmarks;

import org.jspecify.annotations.NullMarked;
