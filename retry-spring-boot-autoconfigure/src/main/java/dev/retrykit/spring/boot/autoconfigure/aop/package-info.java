/**
 * Auto-configuration of the {@code @Retryable} and {@code @Failback} aspect and of
 * {@code retry.targets}: the advisors, the method resolver and the application's listeners as beans.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.aop;

import org.jspecify.annotations.NullMarked;
