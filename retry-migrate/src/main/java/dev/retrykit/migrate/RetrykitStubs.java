package dev.retrykit.migrate;

import org.openrewrite.java.JavaParser;

/**
 * Declarations of retrykit's annotations for the parser of the recipes' templates, so that the code they write is
 * type-attributed without retrykit on the recipe's class path. They declare the attributes the recipes write.
 */
final class RetrykitStubs {

	private static final String RETRYABLE = """
			package dev.retrykit.annotation;
			public @interface Retryable {
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

	private RetrykitStubs() {
	}

	/** @return a parser that knows retrykit's annotations */
	static JavaParser.Builder<?, ?> parser() {
		return JavaParser.fromJavaVersion().dependsOn(RETRYABLE, BACKOFF, RECOVER);
	}

}
