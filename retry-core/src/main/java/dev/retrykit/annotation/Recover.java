package dev.retrykit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a fallback for the {@link Retryable} methods of the same bean, called when their retries end
 * without success.
 *
 * <p>A recover method has the return type of the method it recovers (or a subtype) and takes an
 * optional leading {@link Throwable} parameter followed by the recovered method's parameters (all of
 * them, or none). Among the fitting recover methods of a class, the one whose {@code Throwable}
 * parameter is the closest supertype of the failure is called; one without a {@code Throwable}
 * parameter fits every failure. {@link Retryable#recover()} picks recover methods by name instead.
 * Two recover methods that fit equally well make the application fail at startup.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Recover {

}
