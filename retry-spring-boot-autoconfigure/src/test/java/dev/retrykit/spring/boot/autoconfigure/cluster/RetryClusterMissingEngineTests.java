package dev.retrykit.spring.boot.autoconfigure.cluster;

import dev.retrykit.spring.boot.autoconfigure.InvalidRetryPropertyException;
import dev.retrykit.spring.boot.autoconfigure.RetryAutoConfiguration;
import dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalyzer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code retry.cluster.enabled=true} without an engine module never starts local-only in silence: startup fails
 * naming the property and the module to add, whichever of Hazelcast and retry-hazelcast is missing (the Redis
 * engine's module on the class path has no connection in these contexts, so it cannot stand in).
 */
class RetryClusterMissingEngineTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class, RetryClusterAutoConfiguration.class))
		.withPropertyValues("retry.cluster.enabled=true");

	@Test
	void hazelcastWithoutRetryHazelcastFailsStartupNamingTheModuleAndTheProperty() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("dev.retrykit.hazelcast.")).run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.enabled");
			assertThat(failure.getReason()).contains("Hazelcast is on the class path", "dev.retrykit:retry-hazelcast");
			FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.cluster.enabled'", "dev.retrykit:retry-hazelcast");
			assertThat(analysis.getAction()).contains("dev.retrykit:retry-hazelcast", "retry.cluster.enabled=false");
		});
	}

	@Test
	void noEngineModuleAtAllFailsStartupNamingTheModuleAndTheProperty() {
		this.contextRunner
			.withClassLoader(new FilteredClassLoader("dev.retrykit.hazelcast.", "com.hazelcast.", "dev.retrykit.redis."))
			.run(context -> {
				InvalidRetryPropertyException failure = invalidProperty(context);
				assertThat(failure.getProperty()).isEqualTo("retry.cluster.enabled");
				assertThat(failure.getReason()).contains("no cluster engine module", "dev.retrykit:retry-hazelcast",
						"dev.retrykit:retry-redis");
				assertThat(new RetryFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
					.contains("dev.retrykit:retry-hazelcast", "dev.retrykit:retry-redis", "retry.cluster.enabled=false");
			});
	}

	@Test
	void retryHazelcastWithoutHazelcastFailsStartupNamingHazelcast() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("com.hazelcast.")).run(context -> {
			InvalidRetryPropertyException failure = invalidProperty(context);
			assertThat(failure.getProperty()).isEqualTo("retry.cluster.enabled");
			assertThat(failure.getReason()).contains("com.hazelcast:hazelcast");
		});
	}

	@Test
	void withTheClusterDisabledTheMissingModuleIsNoProblem() {
		this.contextRunner.withPropertyValues("retry.cluster.enabled=false")
			.withClassLoader(new FilteredClassLoader("dev.retrykit.hazelcast."))
			.run(context -> assertThat(context).hasNotFailed());
	}

	private static InvalidRetryPropertyException invalidProperty(AssertableApplicationContext context) {
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidRetryPropertyException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("Startup did not fail with an InvalidRetryPropertyException", context.getStartupFailure());
	}

}
