package dev.retrykit.spring.boot.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.retrykit.RetryRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalysisTests.analysis;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Startup failures read in property terms: the path, the value, where it was set and what is allowed; never
 * an internal name or an empty list.
 */
class RetryPropertyFailureMessagesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class));

	@Test
	void aRetryEnabledValueThatIsNotABooleanFailsStartupInsteadOfTurningRetrykitOff() {
		this.runner.withPropertyValues("retry.enabled=maybe").run(context -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'retry.enabled'", "'maybe'");
			assertThat(analysis.getAction()).contains("true", "false");
		});
		this.runner.withPropertyValues("retry.enabled=false")
			.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RetryRegistry.class));
		this.runner.withPropertyValues("retry.enabled=TRUE")
			.run(context -> assertThat(context).hasNotFailed().hasSingleBean(RetryRegistry.class));
	}

	@Test
	void aSharedBudgetConflictNamesBothInstancesPropertiesAndTheirValues() {
		this.runner.withPropertyValues("retry.instances.orders.budget.name=shop", "retry.instances.orders.budget.max-tokens=10",
				"retry.instances.billing.budget.name=shop", "retry.instances.billing.budget.max-tokens=20").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).doesNotContain("*", "'null'")
						.contains("'retry.instances.billing.budget.max-tokens'", "'20'",
								"retry.instances.orders.budget.max-tokens", "10", "'shop'");
					assertThat(analysis.getAction()).contains("retry.instances.billing.budget.max-tokens",
							"retry.instances.orders.budget.max-tokens");
				});
	}

	@Test
	void aSharedBudgetConflictOnAnInheritedTokenRatioNamesWhereItWasSet() {
		this.runner.withPropertyValues("retry.configs.careful.budget.token-ratio=0.5",
				"retry.instances.orders.base-config=careful", "retry.instances.orders.budget.name=shop",
				"retry.instances.billing.budget.name=shop").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).doesNotContain("'null'").contains("token-ratio", "0.5", "0.1",
							"retry.instances.orders", "retry.instances.billing");
				});
	}

	@Test
	void aValueErrorNamesNoInternalName() {
		this.runner.withPropertyValues("retry.instances.inventory.max-attempts=0").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).doesNotContain("maxAttempts")
				.contains("'retry.instances.inventory.max-attempts'", "'0'", "must be 1 or greater, or -1 for unlimited");
		});
		this.runner.withPropertyValues("retry.timer.wheel-size=0").run(context -> assertThat(
				analysis(context.getStartupFailure()).getDescription()).doesNotContain("wheelSize").contains("'retry.timer.wheel-size'"));
	}

	@Test
	void aMissingBaseConfigWithNoConfigsDeclaredSaysSoInsteadOfListingNone() {
		this.runner.withPropertyValues("retry.instances.inventory.base-config=slow").run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getAction()).doesNotContain("[]").contains("retry.configs.slow");
		});
		this.runner.withPropertyValues("retry.configs.fast.max-attempts=2", "retry.instances.inventory.base-config=slow")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getAction()).contains("[fast]"));
	}

	@Test
	void aValueErrorGivesTheFileAndLineWhereTheValueWasSet() {
		this.runner.withInitializer(context -> addYaml(context, """
				retry:
				  instances:
				    inventory:
				      max-attempts: 0
				""")).run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
			.contains("'retry.instances.inventory.max-attempts'", "application-test.yml", "4:21"));
		this.runner.withInitializer(context -> addYaml(context, """
				retry:
				  enabled: maybe
				""")).run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
			.contains("'retry.enabled'", "application-test.yml", "2:12"));
	}

	@Test
	void aBadShowValuesListsTheAllowedValues() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class,
					dev.retrykit.spring.boot.autoconfigure.endpoint.RetriesEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoint.retries.show-values=sometimes")
			.run(context -> {
				FailureAnalysis analysis = analysis(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'management.endpoint.retries.show-values'", "'sometimes'");
				assertThat(analysis.getAction()).contains("never", "when-authorized", "always");
			});
	}

	private static void addYaml(ConfigurableApplicationContext context, String yaml) {
		try {
			ByteArrayResource resource = new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8), "application-test.yml") {
				@Override
				public String getFilename() {
					return "application-test.yml";
				}
			};
			List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application-test.yml", resource);
			sources.forEach(source -> context.getEnvironment().getPropertySources().addFirst(source));
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
