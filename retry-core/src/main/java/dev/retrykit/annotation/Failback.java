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
 *
 * <p>The instance's failback executor keeps at most its capacity of pending tasks
 * ({@code retry.instances.<name>.failback.capacity}, default 10000). A call with a key that is not pending
 * while the executor is full does not run the method: it throws the executor's
 * {@link java.util.concurrent.RejectedExecutionException} (naming the instance and the capacity) to the
 * caller, and the refusal is counted ({@code retry.failback.rejected}). The caller is the only one that
 * can still keep the work, so it is told rather than the call being dropped with a log line.
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
