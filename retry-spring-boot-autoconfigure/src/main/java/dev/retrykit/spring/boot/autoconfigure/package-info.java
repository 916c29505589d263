/**
 * Spring Boot auto-configuration of retrykit: the {@code retry.*} properties, the registry and one
 * {@code RetryTemplate} bean per declared instance, time and scheduling beans, and failure analysis
 * of invalid settings. The aspect is in {@code .aop}, HTTP client integration in {@code .http}.
 */
@NullMarked
package dev.retrykit.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
