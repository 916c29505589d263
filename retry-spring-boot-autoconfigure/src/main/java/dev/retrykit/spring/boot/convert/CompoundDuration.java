package dev.retrykit.spring.boot.convert;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code Duration} property of retrykit's properties as readable in the compound form
 * ({@code 1m30s}, see {@link CompoundDurationConverter}) besides Boot's own forms. The converter
 * applies to marked properties only, so an application's own {@code @ConfigurationProperties} bind
 * exactly as they would without the starter.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD })
public @interface CompoundDuration {

}
