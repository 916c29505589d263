package dev.retrykit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code void} method fire-and-forget with background retries (Apache Dubbo's failback): the
 * call returns at once; if the method fails, it is retried in the background on the timing wheel with
 * the named instance's policy. At most one retry is pending per key: a new failure for a key replaces
 * the pending retry of that key.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Failback {

	/** {@return the instance whose policy drives the background retries (required)} */
	String value();

	/**
	 * {@return a SpEL expression over the method's arguments ({@code #p0}, {@code #name}) giving the
	 * de-duplication key; empty (default) uses the method and its arguments}
	 */
	String key() default "";

}
