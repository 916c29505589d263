package dev.retrykit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Retries a method (or every public method of a type) with a named retry instance.
 *
 * <p>The instance is configured under {@code retry.instances.<name>}; a name that is not declared
 * uses {@code retry.defaults}. Without a name, the instance is named after the method,
 * {@code SimpleClassName.method}. The attributes below override the instance's configuration for
 * this method only, and only when they are set: each default means "keep the instance's value".
 *
 * <p>Supported return types: plain values (the method is called again for each attempt), and, where
 * the Spring Boot starter supports them, asynchronous types. Errors in the attributes (an unknown
 * backoff type, a {@code recover} method that does not exist or fit, an invalid value) make the
 * application fail at startup, naming the method.
 *
 * <pre>{@code
 * @Retryable(value = "inventory", maxAttempts = 5, backoff = @Backoff(delay = 200, type = "fixed"))
 * public Stock fetchStock(String sku) { ... }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD, ElementType.TYPE })
public @interface Retryable {

	/** The value of {@link #maxAttempts()} that is not set. */
	int UNSET_ATTEMPTS = -2;

	/**
	 * The value of {@link #recover()} that says the method has no recovery: when its attempts are used up the
	 * call ends with its failure even if a {@link Recover} method of the class would fit. No method can have
	 * this name ({@code <} and {@code >} are not allowed in a JVM method name).
	 */
	String NO_RECOVERY = "<none>";

	/** {@return the instance name; same as {@link #name()}; empty (default) = {@code SimpleClassName.method}} */
	String value() default "";

	/** {@return the instance name; same as {@link #value()} (set only one of the two)} */
	String name() default "";

	/**
	 * {@return attempts counting the first, 1 or more, or -1 for unlimited; {@value #UNSET_ATTEMPTS}
	 * (default) keeps the instance's value}
	 */
	int maxAttempts() default UNSET_ATTEMPTS;

	/** {@return backoff overrides; each unset attribute keeps the instance's value} */
	Backoff backoff() default @Backoff;

	/** {@return the failure types retried, replacing the instance's {@code retry-on}; empty (default) keeps them} */
	Class<? extends Throwable>[] retryFor() default {};

	/**
	 * {@return the failure types never retried, replacing the instance's {@code ignore}; empty (default) keeps them}
	 */
	Class<? extends Throwable>[] noRetryFor() default {};

	/**
	 * {@return the failure types that are never recovered (Spring Retry's {@code notRecoverable}): a call that ends
	 * with a failure of one of them (subclasses match) rethrows it instead of calling a {@link Recover} method,
	 * replacing the instance's {@code not-recoverable}; empty (default) keeps them}
	 */
	Class<? extends Throwable>[] notRecoverable() default {};

	/**
	 * {@return the name of the {@link Recover} method(s) to use; {@link #NO_RECOVERY} for none, so that a method
	 * keeps no recovery beside methods of its class that have one; empty (default) considers every
	 * {@code @Recover} method of the class that fits (Spring Retry's rule)}
	 */
	String recover() default "";

	/**
	 * {@return {@code true} to make the call stateful (one attempt per call, the count kept between
	 * calls by {@link #key()}); {@code false} (default) uses the instance's {@code stateful} property}
	 */
	boolean stateful() default false;

	/**
	 * {@return a SpEL expression over the arguments ({@code #p0}, {@code #a0}, or parameter names such
	 * as {@code #order.id}) giving the key of a stateful call; empty (default) uses the arguments}
	 */
	String key() default "";

	/**
	 * {@return a SpEL expression over the failure (its root object, as in Spring Retry:
	 * {@code "message.contains('timeout')"}, or the template form {@code "#{message.contains('timeout')}"})
	 * that must also hold for a failure of a retried type to be retried; empty (default) = none}
	 */
	String exceptionExpression() default "";

	/**
	 * {@return the bean names of the {@code RetryListener}s that listen to this method's calls instead of the
	 * application's global listeners (name a global one to keep it); a single empty name ({@code listeners = ""})
	 * means no listener at all; empty (default) keeps the global listeners. An unknown name fails startup.}
	 */
	String[] listeners() default {};

}
