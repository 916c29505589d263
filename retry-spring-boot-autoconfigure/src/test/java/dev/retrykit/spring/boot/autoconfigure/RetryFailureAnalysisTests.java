package dev.retrykit.spring.boot.autoconfigure;

import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

class RetryFailureAnalysisTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class));

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
			retry.instances.inventory.max-attempts | 0 | must be 1 or greater, or -1 for unlimited
			retry.instances.inventory.max-attempts | -2 | must be 1 or greater, or -1 for unlimited
			retry.instances.inventory.max-duration | -1s | must be greater than zero, or zero for none
			retry.instances.inventory.attempt-timeout | -2s | must be greater than zero, or zero for none
			retry.instances.inventory.backoff.delay | -100ms | must be zero or greater
			retry.instances.inventory.backoff.multiplier | 0.5 | must be 1.0 or greater for backoff type 'exponential'
			retry.instances.inventory.backoff.jitter | 1.5 | must be between 0.0 and 1.0
			retry.instances.inventory.backoff.type | quadratic | must be one of none, fixed, linear, exponential
			retry.instances.inventory.match.http-status | 429,50x | '50x' is not a status code or a range
			retry.instances.inventory.match.grpc-status | 99 | '99' is outside 0-16
			retry.configs.shared.max-attempts | 0 | must be 1 or greater, or -1 for unlimited
			retry.defaults.backoff.jitter | -0.1 | must be between 0.0 and 1.0
			retry.context-cache.capacity | 0 | must be 1 or greater
			retry.timer.wheel-size | 0 | must be between 1 and 1073741824
			""")
	void anInvalidValueFailsStartupNamingThePathTheValueAndTheRule(String property, String value, String reason) {
		this.runner.withPropertyValues(property + "=" + value).run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'" + property + "'").contains("'" + value + "'").contains(reason)
				.doesNotContainPattern("Invalid [a-z]+[A-Z][a-z]+ \\(");
			assertThat(analysis.getAction()).contains(property);
		});
	}

	@Test
	void maxDelayShorterThanDelayNamesMaxDelay() {
		this.runner.withPropertyValues("retry.instances.inventory.backoff.delay=5s",
				"retry.instances.inventory.backoff.max-delay=1s").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.inventory.backoff.max-delay'", "'1s'",
							"must be greater than or equal to delay (5s)");
					assertThat(analysis.getAction()).isEqualTo("Update 'retry.instances.inventory.backoff.max-delay' in "
							+ "your configuration: it must be greater than or equal to delay (5s).");
				});
	}

	@Test
	void aDelayLongerThanTheDefaultMaxDelayNamesTheDelayThatWasSet() {
		this.runner.withPropertyValues("retry.instances.x.backoff.delay=20s").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.instances.x.backoff.delay'", "'20s'",
					"must not be longer than max-delay (10s, the built-in default)")
				.doesNotContain("null");
			assertThat(analysis.getAction()).contains("'retry.instances.x.backoff.delay'", "10s or less",
					"'retry.instances.x.backoff.max-delay'");
		});
	}

	@Test
	void aDelayLongerThanAnInheritedMaxDelayNamesWhereTheMaxDelayWasSet() {
		this.runner.withPropertyValues("retry.configs.slow.backoff.max-delay=2s", "retry.configs.slower.base-config=slow",
				"retry.instances.x.base-config=slower", "retry.instances.x.backoff.delay=5s").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.x.backoff.delay'", "'5s'",
							"max-delay (2s, inherited from 'retry.configs.slow.backoff.max-delay')")
						.doesNotContain("null");
				});
		this.runner.withPropertyValues("retry.defaults.backoff.max-delay=3s", "retry.instances.x.backoff.delay=4s")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.x.backoff.delay'", "'4s'",
						"max-delay (3s, inherited from 'retry.defaults.backoff.max-delay')"));
	}

	@Test
	void aMaxDelayShorterThanAnInheritedDelaySaysWhereTheDelayWasSet() {
		this.runner.withPropertyValues("retry.defaults.backoff.delay=2s", "retry.defaults.backoff.max-delay=5s",
				"retry.instances.x.backoff.max-delay=1s").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.x.backoff.max-delay'", "'1s'",
							"must be greater than or equal to delay (2s, inherited from 'retry.defaults.backoff.delay')");
					assertThat(analysis.getAction()).contains("'retry.instances.x.backoff.max-delay'", "2s or more");
				});
	}

	@Test
	void anExponentialTypeOverAnInheritedMultiplierBelowOneNamesTheType() {
		this.runner.withPropertyValues("retry.configs.half.backoff.type=fixed", "retry.configs.half.backoff.multiplier=0.5",
				"retry.instances.x.base-config=half", "retry.instances.x.backoff.type=exponential").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.x.backoff.type'", "'exponential'",
							"multiplier (0.5, inherited from 'retry.configs.half.backoff.multiplier')")
						.doesNotContain("null");
					assertThat(analysis.getAction()).contains("'retry.instances.x.backoff.multiplier'", "1.0 or greater",
							"'retry.instances.x.backoff.type'", "fixed");
				});
	}

	@Test
	void aMultiplierBelowOneUnderAnInheritedExponentialTypeNamesTheMultiplier() {
		this.runner.withPropertyValues("retry.configs.exp.backoff.type=full-jitter", "retry.instances.x.base-config=exp",
				"retry.instances.x.backoff.multiplier=0.5").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.x.backoff.multiplier'", "'0.5'",
							"must be 1.0 or greater for backoff type 'full-jitter'",
							"inherited from 'retry.configs.exp.backoff.type'")
						.doesNotContain("null");
				});
	}

	@Test
	void aMultiplierBelowOneIsRejectedOnlyForExponentialTypes() {
		this.runner.withPropertyValues("retry.instances.a.backoff.type=fixed", "retry.instances.a.backoff.multiplier=0.5")
			.run(context -> assertThat(context).hasNotFailed());
		this.runner.withPropertyValues("retry.instances.a.backoff.type=full-jitter", "retry.instances.a.backoff.multiplier=0.5")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.a.backoff.multiplier'", "for backoff type 'full-jitter'"));
	}

	@Test
	void aMalformedTripExpressionIsReportedWithItsPosition() {
		this.runner.withPropertyValues("retry.instances.a.circuit-breaker.enabled=true",
				"retry.instances.a.circuit-breaker.trip=consecutiveFailures >> 5").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.a.circuit-breaker.trip'",
							"'consecutiveFailures >> 5'", "at position 21");
				});
	}

	@Test
	void breakerAndBudgetSettingsAreValidatedWithoutEnabledAndWhenDisabled() {
		this.runner.withPropertyValues("retry.instances.a.circuit-breaker.trip=consecutiveFailures >> 5")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.a.circuit-breaker.trip'", "'consecutiveFailures >> 5'"));
		this.runner.withPropertyValues("retry.instances.a.circuit-breaker.enabled=false",
				"retry.instances.a.circuit-breaker.timeout=-1s")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.a.circuit-breaker.timeout'"));
		this.runner.withPropertyValues("retry.instances.a.budget.enabled=false", "retry.instances.a.budget.token-ratio=-0.5")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.a.budget.token-ratio'"));
	}

	@Test
	void anUnknownExceptionClassIsReportedWithItsIndex() {
		this.runner.withPropertyValues("retry.instances.a.retry-on[0]=java.io.IOException",
				"retry.instances.a.retry-on[1]=java.io.IOExceptoin").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.a.retry-on[1]'", "'java.io.IOExceptoin'",
							"no class named 'java.io.IOExceptoin' is on the classpath");
					assertThat(analysis.getAction()).contains("fully qualified name of an exception class");
				});
	}

	@Test
	void anUnknownNotRecoverableClassFailsStartupNamingThePropertyTheValueAndWhatIsAllowed() {
		this.runner.withPropertyValues("retry.configs.strict.not-recoverable[0]=java.io.FileNotFoundExcepton").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.configs.strict.not-recoverable[0]'",
					"'java.io.FileNotFoundExcepton'", "no class named 'java.io.FileNotFoundExcepton' is on the classpath");
			assertThat(analysis.getAction()).contains("'retry.configs.strict.not-recoverable[0]'",
					"fully qualified name of an exception class");
		});
	}

	@Test
	void aClassThatIsNotAThrowableIsRejected() {
		this.runner.withPropertyValues("retry.instances.a.ignore=java.lang.String")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.a.ignore[0]'", "'java.lang.String' is not a Throwable"));
	}

	@Test
	void aMissingBaseConfigListsTheDeclaredConfigs() {
		this.runner.withPropertyValues("retry.configs.slow-backend.max-attempts=5",
				"retry.instances.inventory.base-config=slow-backnd").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.inventory.base-config'",
							"'slow-backnd'", "no config named 'slow-backnd' is declared under retry.configs");
					assertThat(analysis.getAction()).contains("[slow-backend]");
				});
	}

	@Test
	void configsInheritingInACycleAreRejected() {
		this.runner.withPropertyValues("retry.configs.a.base-config=b", "retry.configs.b.base-config=a")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.configs.a.base-config'", "cycle: a -> b -> a"));
	}

	@Test
	void theDefaultsCannotHaveABaseConfig() {
		this.runner.withPropertyValues("retry.defaults.base-config=x")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.defaults.base-config'", "cannot inherit"));
	}

	@Test
	void aMissingPredicateBeanListsTheCandidates() {
		this.runner.withBean("nullResult", Predicate.class, () -> (Predicate<Object>) value -> value == null)
			.withPropertyValues("retry.instances.a.retry-on-result=emptyResult").run(context -> {
				FailureAnalysis analysis = analysis(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'retry.instances.a.retry-on-result'", "'emptyResult'",
						"no bean named 'emptyResult' exists");
				assertThat(analysis.getAction()).contains("java.util.function.Predicate bean", "[nullResult]");
			});
	}

	@Test
	void aDelayHintBeanOfTheWrongTypeIsRejected() {
		this.runner.withBean("notAHint", String.class, () -> "x")
			.withPropertyValues("retry.instances.a.delay-hint=notAHint")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.instances.a.delay-hint'", "bean 'notAHint' is not a dev.retrykit.spi.DelayHintExtractor"));
	}

	@Test
	void anUnknownKeyListsTheKeysAllowedAtItsLevel() {
		this.runner.withPropertyValues("retry.instances.inventory.max-atempts=4").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("retry.instances.inventory.max-atempts", "'4'", "no such key");
			assertThat(analysis.getAction()).contains("max-attempts", "base-config", "circuit-breaker", "honor-retry-after");
		});
	}

	@Test
	void anUnknownNestedOrTopLevelKeyListsTheKeysOfItsGroup() {
		this.runner.withPropertyValues("retry.instances.inventory.backoff.delya=1s")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getAction())
				.contains("[delay, jitter, max-delay, multiplier, type]"));
		this.runner.withPropertyValues("retry.bogus=1")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getAction())
				.contains("aspect-order", "context-cache", "instances", "targets", "timer"));
	}

	@Test
	void aValueThatCannotBeConvertedSaysWhichFormsAreAllowed() {
		this.runner.withPropertyValues("retry.instances.a.max-attempts=three").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'three'", "'retry.instances.a.max-attempts'");
			assertThat(analysis.getAction()).contains("a whole number");
		});
		this.runner.withPropertyValues("retry.instances.a.max-duration=ten seconds").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'ten seconds'", "'retry.instances.a.max-duration'");
			assertThat(analysis.getAction()).contains("500ms, 2s, 1m30s, 1h30m or PT1M30S");
		});
	}

	@Test
	void theAnalyzerIsRegisteredInSpringFactories() {
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, (type, name, failure) -> {
			}))
			.anyMatch(RetryFailureAnalyzer.class::isInstance);
	}

	static FailureAnalysis analysis(Throwable failure) {
		assertThat(failure).as("startup failure").isNotNull();
		FailureAnalysis analysis = new RetryFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("analysis of %s", failure).isNotNull();
		return analysis;
	}

}
