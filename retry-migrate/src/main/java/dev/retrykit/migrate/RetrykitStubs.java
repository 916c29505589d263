package dev.retrykit.migrate;

import org.openrewrite.java.JavaParser;

/**
 * Declarations of retrykit's annotations and of the core API the recipes write, for the parser of their templates, so
 * that the code they write is type-attributed without retrykit on the recipe's class path. They declare only what the
 * recipes write.
 */
final class RetrykitStubs {

	private static final String RETRYABLE = """
			package dev.retrykit.annotation;
			public @interface Retryable {
				String NO_RECOVERY = "<none>";
				String value() default "";
				String name() default "";
				int maxAttempts() default -2;
				Backoff backoff() default @Backoff;
				Class<? extends Throwable>[] retryFor() default {};
				Class<? extends Throwable>[] noRetryFor() default {};
				Class<? extends Throwable>[] notRecoverable() default {};
				String recover() default "";
				boolean stateful() default false;
				String key() default "";
				String exceptionExpression() default "";
				String[] listeners() default {};
			}
			""";

	private static final String BACKOFF = """
			package dev.retrykit.annotation;
			public @interface Backoff {
				long delay() default -1;
				long maxDelay() default -1;
				double multiplier() default -1;
				double jitter() default -1;
				String type() default "";
			}
			""";

	private static final String RECOVER = """
			package dev.retrykit.annotation;
			public @interface Recover {
			}
			""";

	private static final String TEMPLATE = """
			package dev.retrykit;
			public final class RetryTemplate {
				public static RetryTemplateBuilder builder() { return null; }
				public <T, E extends Throwable> T execute(RetryCallback<T, E> callback) throws E { return null; }
				public <T, E extends Throwable> T execute(RetryCallback<T, E> callback, RecoveryCallback<T> recovery) throws E { return null; }
				public <T, E extends Throwable> T execute(RetryCallback<T, E> callback, RetryState state) throws E { return null; }
				public <T, E extends Throwable> T execute(RetryCallback<T, E> callback, RecoveryCallback<T> recovery, RetryState state) throws E { return null; }
			}
			""";

	private static final String TEMPLATE_BUILDER = """
			package dev.retrykit;
			public final class RetryTemplateBuilder {
				public RetryTemplateBuilder maxAttempts(int maxAttempts) { return this; }
				public RetryTemplateBuilder backoff(dev.retrykit.spi.BackoffStrategy backoff) { return this; }
				@SafeVarargs
				public final RetryTemplateBuilder retryOn(Class<? extends Throwable>... types) { return this; }
				@SafeVarargs
				public final RetryTemplateBuilder ignore(Class<? extends Throwable>... types) { return this; }
				public RetryTemplate build() { return null; }
			}
			""";

	private static final String CALLBACKS = """
			package dev.retrykit;
			public interface RetryCallback<T, E extends Throwable> {
				T doWithRetry(RetryContext context) throws E;
			}
			""";

	private static final String RECOVERY = """
			package dev.retrykit;
			public interface RecoveryCallback<T> {
				T recover(RetryContext context) throws Exception;
			}
			""";

	private static final String CONTEXT = """
			package dev.retrykit;
			public interface RetryContext {
				int getRetryCount();
				Throwable getLastThrowable();
				RetryContext getParent();
				void setExhaustedOnly();
				boolean isExhaustedOnly();
				Object getAttribute(String name);
				void setAttribute(String name, Object value);
				boolean hasAttribute(String name);
			}
			""";

	private static final String STATE = """
			package dev.retrykit;
			public record RetryState(Object key, boolean forceRefresh, java.util.function.Predicate<Throwable> rollbackFor) {
				public static RetryState of(Object key) { return null; }
				public static RetryState of(Object key, boolean forceRefresh) { return null; }
			}
			""";

	private static final String BACKOFF_STRATEGY = """
			package dev.retrykit.spi;
			public interface BackoffStrategy {
			}
			""";

	private static final String BACKOFF_POLICY = """
			package dev.retrykit.backoff;
			public final class BackoffPolicy implements dev.retrykit.spi.BackoffStrategy {
				public static BackoffPolicy none() { return null; }
				public static BackoffPolicy fixed(java.time.Duration delay) { return null; }
				public static BackoffPolicy exponential(java.time.Duration delay, double multiplier, java.time.Duration maxDelay) { return null; }
				public static BackoffPolicyBuilder builder() { return null; }
			}
			""";

	private static final String BACKOFF_POLICY_BUILDER = """
			package dev.retrykit.backoff;
			public final class BackoffPolicyBuilder {
				public BackoffPolicyBuilder type(BackoffType type) { return this; }
				public BackoffPolicyBuilder delay(java.time.Duration delay) { return this; }
				public BackoffPolicyBuilder maxDelay(java.time.Duration maxDelay) { return this; }
				public BackoffPolicyBuilder multiplier(double multiplier) { return this; }
				public BackoffPolicy build() { return null; }
			}
			""";

	private static final String BACKOFF_TYPE = """
			package dev.retrykit.backoff;
			public enum BackoffType {
				NONE, FIXED, EXPONENTIAL, EXPONENTIAL_RANDOM, UNIFORM_RANDOM
			}
			""";

	private RetrykitStubs() {
	}

	/** @return a parser that knows retrykit's annotations */
	static JavaParser.Builder<?, ?> parser() {
		return JavaParser.fromJavaVersion().dependsOn(RETRYABLE, BACKOFF, RECOVER, TEMPLATE, TEMPLATE_BUILDER, CALLBACKS,
				RECOVERY, CONTEXT, STATE, BACKOFF_STRATEGY, BACKOFF_POLICY, BACKOFF_POLICY_BUILDER, BACKOFF_TYPE);
	}

}
