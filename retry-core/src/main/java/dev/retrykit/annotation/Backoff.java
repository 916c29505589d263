package dev.retrykit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Inline backoff settings of a {@link Retryable} method. Each attribute left at its default keeps the
 * value of the named instance's backoff (from {@code retry.instances.<name>.backoff}); each attribute
 * that is set overrides it for that method only. The resulting backoff is validated at startup with
 * the same rules as the properties (for example, {@code maxDelay} must not be shorter than
 * {@code delay}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface Backoff {

	/** The value of a duration or number attribute that is not set. */
	long UNSET = -1;

	/**
	 * {@return the base delay {@code d} in milliseconds, zero or more; {@value #UNSET} (default) keeps
	 * the instance's delay}
	 */
	long delay() default UNSET;

	/**
	 * {@return the maximum delay in milliseconds, not shorter than the delay; {@value #UNSET} (default)
	 * keeps the instance's maximum}
	 */
	long maxDelay() default UNSET;

	/**
	 * {@return the multiplier, 1.0 or greater for the exponential types; a negative value (default)
	 * keeps the instance's multiplier}
	 */
	double multiplier() default UNSET;

	/**
	 * {@return the jitter factor within [0, 1]; a negative value (default) keeps the instance's jitter}
	 */
	double jitter() default UNSET;

	/**
	 * {@return the backoff type id as in the properties ({@code none}, {@code fixed}, {@code linear},
	 * {@code exponential}, {@code exponential-random}, {@code uniform-random}, {@code fibonacci},
	 * {@code full-jitter}, {@code equal-jitter}, {@code decorrelated-jitter}); empty (default) keeps
	 * the instance's type}
	 */
	String type() default "";

}
