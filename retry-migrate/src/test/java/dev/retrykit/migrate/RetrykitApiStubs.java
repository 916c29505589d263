package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.openrewrite.java.JavaParser;

/**
 * Small stand-ins of the part of retrykit's API that 0.2 renamed, in its 0.1 form and in its 0.2 form, for the
 * parser of {@link RetrykitApiChangesTests}: neither form is on this module's class path (the recipe runs on code
 * that has only one of them).
 */
final class RetrykitApiStubs {

	private static final String RETRY_TEMPLATE_0_1 = """
			package dev.retrykit;
			public final class RetryTemplate {
				public static RetryTemplate of(String name) { return null; }
				public <T> T execute(java.util.function.Supplier<T> call) { return null; }
			}
			""";

	private static final String RETRY_TEMPLATE_0_2 = """
			package dev.retrykit;
			public final class RetryTemplate {
				public static RetryTemplate of(String name) { return null; }
				public <T> T execute(java.util.function.Supplier<T> call) { return null; }
				public static dev.retrykit.context.RetryContext currentContext() { return null; }
			}
			""";

	private static final String LISTENER_0_1 = """
			package dev.retrykit;
			public interface RetryListener {
				default void onError(RetryContext context, Throwable failure) {
				}
			}
			""";

	private static final String LISTENER_0_2 = """
			package dev.retrykit;
			public interface RetryListener {
				default void onError(dev.retrykit.context.RetryContext context, Throwable failure) {
				}
			}
			""";

	private static final String CONTEXT = """
			package %s;
			public interface RetryContext {
				@Deprecated
				static RetryContext current() { return null; }
				int getRetryCount();
				String getName();
				CallOutcome getOutcome();
			}
			""";

	private static final String OUTCOME = """
			package %s;
			public enum CallOutcome {
				SUCCESSFUL_WITHOUT_RETRY, SUCCESSFUL_WITH_RETRY, FAILED_WITHOUT_RETRY, FAILED_WITH_RETRY;
				public static CallOutcome failed(boolean retried) { return null; }
			}
			""";

	private static final String SCHEDULER = """
			package %s;
			public final class TimingWheelScheduler implements AutoCloseable {
				public static TimingWheelSchedulerBuilder builder() { return null; }
				public void close() {
				}
			}
			""";

	private static final String SCHEDULER_BUILDER = """
			package %s;
			public final class TimingWheelSchedulerBuilder {
				public TimingWheelSchedulerBuilder tick(java.time.Duration tick) { return this; }
				public TimingWheelScheduler build() { return null; }
			}
			""";

	private static final String CODEC = """
			package %s;
			public final class SnapshotCodec {
				public static SnapshotCodec allowing(java.util.Collection<String> allowed) { return null; }
			}
			""";

	private static final String VALUES = """
			package %s;
			public final class SnapshotValues {
			}
			""";

	private static final String ENGINE = """
			package dev.retrykit.redis;
			public final class %s implements AutoCloseable {
				public static %sBuilder builder(String uri) { return null; }
				public void close() {
				}
			}
			""";

	private static final String ENGINE_BUILDER = """
			package dev.retrykit.redis;
			public final class %sBuilder {
				public %sBuilder prefix(String prefix) { return this; }
				public %s build() { return null; }
			}
			""";

	private static final Pattern DEPRECATED_CURRENT = Pattern.compile("\\s*@Deprecated\\s*static RetryContext current\\(\\) \\{ return null; \\}");

	private static final Pattern PACKAGE = Pattern.compile("package ([\\w.]+);");

	private static final Pattern TYPE = Pattern.compile("public (?:final )?(?:class|interface|enum) (\\w+)");

	private RetrykitApiStubs() {
	}

	/** @return a parser that knows retrykit 0.1's names */
	static JavaParser.Builder<?, ?> before() {
		return JavaParser.fromJavaVersion().dependsOn(sources(RETRY_TEMPLATE_0_1, LISTENER_0_1, "dev.retrykit", "dev.retrykit.async",
				"dev.retrykit.spi", "RedisClusterEngine"));
	}

	/** @return a parser that knows retrykit 0.2's names (with the deprecated {@code RetryContext.current()}) */
	static JavaParser.Builder<?, ?> after() {
		return JavaParser.fromJavaVersion().dependsOn(sources(RETRY_TEMPLATE_0_2, LISTENER_0_2, "dev.retrykit.context",
				"dev.retrykit.scheduler", "dev.retrykit.cluster", "RedisEngine"));
	}

	/**
	 * @param newNames 0.2's names (without the deprecated {@code RetryContext.current()}) or 0.1's
	 * @return the stand-ins as Java source files by path, to compile a project against
	 */
	static Map<String, String> files(boolean newNames) {
		String[] sources = newNames ? sources(RETRY_TEMPLATE_0_2, LISTENER_0_2, "dev.retrykit.context", "dev.retrykit.scheduler",
				"dev.retrykit.cluster", "RedisEngine")
				: sources(RETRY_TEMPLATE_0_1, LISTENER_0_1, "dev.retrykit", "dev.retrykit.async", "dev.retrykit.spi",
						"RedisClusterEngine");
		Map<String, String> files = new LinkedHashMap<>();
		for (String source : sources) {
			if (newNames) {
				source = DEPRECATED_CURRENT.matcher(source).replaceAll("");
			}
			Matcher packageName = PACKAGE.matcher(source);
			Matcher typeName = TYPE.matcher(source);
			if (!packageName.find() || !typeName.find()) {
				throw new IllegalStateException("not a type: " + source);
			}
			files.put("stubs/" + packageName.group(1).replace('.', '/') + "/" + typeName.group(1) + ".java", source);
		}
		return files;
	}

	private static String[] sources(String template, String listener, String contextPackage, String schedulerPackage,
			String codecPackage, String engine) {
		List<String> sources = new ArrayList<>(List.of(template, listener));
		sources.add(CONTEXT.formatted(contextPackage));
		sources.add(OUTCOME.formatted(contextPackage));
		sources.add(SCHEDULER.formatted(schedulerPackage));
		sources.add(SCHEDULER_BUILDER.formatted(schedulerPackage));
		sources.add(CODEC.formatted(codecPackage));
		sources.add(VALUES.formatted(codecPackage));
		sources.add(ENGINE.formatted(engine, engine));
		sources.add(ENGINE_BUILDER.formatted(engine, engine, engine));
		return sources.toArray(String[]::new);
	}

}
