package dev.retrykit.spring.boot.autoconfigure.aop;

import org.springframework.context.annotation.Configuration;

/**
 * The {@code @Retryable} aspect's beans.
 */
@Configuration(proxyBeanMethods = false)
public final class RetryAspectConfiguration {

}
