/**
 * The {@code @Retryable} aspect: a pointcut advisor and method interceptor (no AspectJ weaving needed
 * for annotations), recover-method resolution, startup validation, and the advisor of
 * {@code retry.targets} (AspectJ expression pointcuts).
 */
@NullMarked
package dev.retrykit.spring.boot.aop;

import org.jspecify.annotations.NullMarked;
