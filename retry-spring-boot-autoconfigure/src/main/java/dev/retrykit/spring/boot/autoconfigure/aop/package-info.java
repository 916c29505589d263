/**
 * The former package of the aspect's runtime, now {@code dev.retrykit.spring.boot.aop}: only a deprecated
 * alias of {@code MethodListeners} is left here (the aspect's auto-configuration is
 * {@code dev.retrykit.spring.boot.autoconfigure.RetryAspectConfiguration}).
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure.aop;

import org.jspecify.annotations.NullMarked;
