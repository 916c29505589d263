package dev.retrykit.migrate;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.java.Assertions.mavenProject;
import static org.openrewrite.java.Assertions.srcMainJava;

/**
 * {@code dev.retrykit.migrate.RetrykitApiChanges} on a small project written against retrykit 0.1's names (a
 * listener that reads the ambient context, a class that imports {@code CallOutcome}, the timing wheel, a Redis
 * set-up, a star import of {@code dev.retrykit}), and on one that already moved the types but still calls the
 * deprecated {@code RetryContext.current()}. A star import of {@code dev.retrykit} gets imports of the moved types
 * beside it, and folds to single imports when it names fewer types than OpenRewrite's import layout folds. The old and the new API are small stubs ({@link RetrykitApiStubs}).
 */
class RetrykitApiChangesTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipeFromResources("dev.retrykit.migrate.RetrykitApiChanges").parser(RetrykitApiStubs.before());
	}

	@Test
	void aProjectWrittenAgainstTheOldNamesMovesToTheNewOnes() {
		rewriteRun(mavenProject("shop", srcMainJava(java("""
				package shop;

				import dev.retrykit.RetryContext;
				import dev.retrykit.RetryListener;

				class AuditListener implements RetryListener {

					@Override
					public void onError(RetryContext context, Throwable failure) {
						System.out.println(context.getName() + " failed " + context.getRetryCount() + " times");
					}

					static String currentCall() {
						RetryContext context = RetryContext.current();
						return (context != null) ? context.getName() : "none";
					}

				}
				""", """
				package shop;

				import dev.retrykit.RetryListener;
				import dev.retrykit.RetryTemplate;
				import dev.retrykit.context.RetryContext;

				class AuditListener implements RetryListener {

					@Override
					public void onError(RetryContext context, Throwable failure) {
						System.out.println(context.getName() + " failed " + context.getRetryCount() + " times");
					}

					static String currentCall() {
						RetryContext context = RetryTemplate.currentContext();
						return (context != null) ? context.getName() : "none";
					}

				}
				"""), java("""
				package shop;

				import dev.retrykit.CallOutcome;

				class Outcomes {

					boolean retried(CallOutcome outcome) {
						return outcome == CallOutcome.SUCCESSFUL_WITH_RETRY || outcome == CallOutcome.failed(true);
					}

				}
				""", """
				package shop;

				import dev.retrykit.context.CallOutcome;

				class Outcomes {

					boolean retried(CallOutcome outcome) {
						return outcome == CallOutcome.SUCCESSFUL_WITH_RETRY || outcome == CallOutcome.failed(true);
					}

				}
				"""), java("""
				package shop;

				import java.time.Duration;

				import dev.retrykit.async.TimingWheelScheduler;
				import dev.retrykit.async.TimingWheelSchedulerBuilder;

				class Timers {

					TimingWheelScheduler scheduler() {
						TimingWheelSchedulerBuilder builder = TimingWheelScheduler.builder().tick(Duration.ofMillis(10));
						return builder.build();
					}

				}
				""", """
				package shop;

				import java.time.Duration;

				import dev.retrykit.scheduler.TimingWheelScheduler;
				import dev.retrykit.scheduler.TimingWheelSchedulerBuilder;

				class Timers {

					TimingWheelScheduler scheduler() {
						TimingWheelSchedulerBuilder builder = TimingWheelScheduler.builder().tick(Duration.ofMillis(10));
						return builder.build();
					}

				}
				"""), java("""
				package shop;

				import java.util.List;

				import dev.retrykit.redis.RedisClusterEngine;
				import dev.retrykit.spi.SnapshotCodec;
				import dev.retrykit.spi.SnapshotValues;

				class RedisSetup {

					final SnapshotCodec codec = SnapshotCodec.allowing(List.of("shop.Order"));

					SnapshotValues values;

					RedisClusterEngine engine() {
						return RedisClusterEngine.builder("redis://127.0.0.1:6379").prefix("shop").build();
					}

				}
				""", """
				package shop;

				import java.util.List;

				import dev.retrykit.cluster.SnapshotCodec;
				import dev.retrykit.cluster.SnapshotValues;
				import dev.retrykit.redis.RedisEngine;

				class RedisSetup {

					final SnapshotCodec codec = SnapshotCodec.allowing(List.of("shop.Order"));

					SnapshotValues values;

					RedisEngine engine() {
						return RedisEngine.builder("redis://127.0.0.1:6379").prefix("shop").build();
					}

				}
				"""), java("""
				package shop;

				import dev.retrykit.*;

				class Checkout {

					private final RetryTemplate template = RetryTemplate.of("checkout");

					String pay() {
						return this.template.execute(() -> {
							RetryContext context = RetryContext.current();
							CallOutcome previous = context.getOutcome();
							return context.getRetryCount() + " " + previous;
						});
					}

				}
				""", """
				package shop;

				import dev.retrykit.RetryTemplate;
				import dev.retrykit.context.CallOutcome;
				import dev.retrykit.context.RetryContext;

				class Checkout {

					private final RetryTemplate template = RetryTemplate.of("checkout");

					String pay() {
						return this.template.execute(() -> {
							RetryContext context = RetryTemplate.currentContext();
							CallOutcome previous = context.getOutcome();
							return context.getRetryCount() + " " + previous;
						});
					}

				}
				"""))));
	}

	/** OpenRewrite's ChangeType imports the types it moves, as a person would write them. */
	@Test
	void fullyQualifiedNamesAndTheBuilderTypeMove() {
		rewriteRun(java("""
				class Wiring {

					dev.retrykit.redis.RedisClusterEngineBuilder builder = dev.retrykit.redis.RedisClusterEngine.builder("redis://127.0.0.1");

					int retries() {
						return dev.retrykit.RetryContext.current().getRetryCount();
					}

				}
				""", """
				import dev.retrykit.RetryTemplate;
				import dev.retrykit.redis.RedisEngine;
				import dev.retrykit.redis.RedisEngineBuilder;

				class Wiring {

					RedisEngineBuilder builder = RedisEngine.builder("redis://127.0.0.1");

					int retries() {
						return RetryTemplate.currentContext().getRetryCount();
					}

				}
				"""));
	}

	/**
	 * The whole sample project ({@code src/test/resources/e2e/retrykit-0.1}) compiles against 0.1's names, and after
	 * the recipe against 0.2's without the deprecated {@code RetryContext.current()}, but no longer against 0.1's.
	 */
	@Test
	void theMigratedProjectCompilesAgainstTheNewNamesOnly(@TempDir Path before, @TempDir Path after, @TempDir Path old)
			throws Exception {
		MiniProject original = MiniProject.load("retrykit-0.1");
		original.with(RetrykitApiStubs.files(false)).compile(before);

		MiniProject migrated = original.migrate("dev.retrykit.migrate.RetrykitApiChanges", RetrykitApiStubs.before());

		assertThat(migrated.toString()).contains("Checkout.java", "Probe.java", "RedisSetup.java");
		migrated.with(RetrykitApiStubs.files(true)).compile(after);
		assertThatThrownBy(() -> migrated.with(RetrykitApiStubs.files(false)).compile(old))
			.hasMessageContaining("dev.retrykit.context");
	}

	/** The static import lands where OpenRewrite's import layout puts it in a file too small to show a style. */
	@Test
	void aStaticImportAndAMethodReferenceOfCurrentMove() {
		rewriteRun(java("""
				import static dev.retrykit.RetryContext.current;

				import java.util.function.Supplier;

				import dev.retrykit.RetryContext;

				class Probe {

					final Supplier<RetryContext> contexts = RetryContext::current;

					int retries() {
						return current().getRetryCount();
					}

				}
				""", """
				import java.util.function.Supplier;

				import static dev.retrykit.RetryTemplate.currentContext;
				import dev.retrykit.RetryTemplate;
				import dev.retrykit.context.RetryContext;

				class Probe {

					final Supplier<RetryContext> contexts = RetryTemplate::currentContext;

					int retries() {
						return currentContext().getRetryCount();
					}

				}
				"""));
	}

	@Test
	void aProjectThatMovedTheTypesButStillCallsTheDeprecatedCurrentCallsCurrentContext() {
		rewriteRun((spec) -> spec.parser(RetrykitApiStubs.after()), java("""
				import dev.retrykit.context.RetryContext;

				class Audit {

					String name() {
						RetryContext context = RetryContext.current();
						return context.getName();
					}

				}
				""", """
				import dev.retrykit.RetryTemplate;
				import dev.retrykit.context.RetryContext;

				class Audit {

					String name() {
						RetryContext context = RetryTemplate.currentContext();
						return context.getName();
					}

				}
				"""));
	}

	@Test
	void codeOnTheNewNamesIsLeftAlone() {
		rewriteRun((spec) -> spec.parser(RetrykitApiStubs.after()), java("""
				import dev.retrykit.RetryTemplate;
				import dev.retrykit.context.CallOutcome;
				import dev.retrykit.context.RetryContext;
				import dev.retrykit.redis.RedisEngine;
				import dev.retrykit.scheduler.TimingWheelScheduler;

				class Current {

					CallOutcome outcome() {
						RetryContext context = RetryTemplate.currentContext();
						return context.getOutcome();
					}

					RedisEngine engine() {
						return RedisEngine.builder("redis://127.0.0.1").build();
					}

					TimingWheelScheduler scheduler() {
						return TimingWheelScheduler.builder().build();
					}

				}
				"""));
	}

}
