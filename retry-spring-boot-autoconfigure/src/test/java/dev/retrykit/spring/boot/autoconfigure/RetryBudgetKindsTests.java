package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;

import dev.retrykit.RetryRegistry;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.retrykit.spring.boot.autoconfigure.RetryFailureAnalysisTests.analysis;
import static org.assertj.core.api.Assertions.assertThat;

/** The two kinds of retry budget in properties: {@code ratio} chooses a ratio budget, and the kinds never mix. */
class RetryBudgetKindsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAutoConfiguration.class));

	@Test
	void settingARatioGivesTheInstanceARatioBudget() {
		this.runner.withPropertyValues("retry.instances.inventory.budget.ratio=0.2",
				"retry.instances.inventory.budget.min-per-second=5", "retry.instances.inventory.budget.window=20s")
			.run(context -> {
				RetryBudget budget = context.getBean(RetryRegistry.class).template("inventory").getBudget();
				assertThat(budget).isNotNull();
				assertThat(budget.getConfig()).isEqualTo(RetryBudgetConfig.builder().ratio(0.2).minPerSecond(5)
					.window(Duration.ofSeconds(20)).build());
				assertThat(budget.getAvailable()).isEqualTo(100.0);
			});
	}

	@Test
	void anInstanceMaySwitchTheKindItsBaseChoseAndInheritsTheRest() {
		this.runner.withPropertyValues("retry.configs.careful.budget.ratio=0.1", "retry.configs.careful.budget.window=5s",
				"retry.instances.orders.base-config=careful", "retry.instances.orders.budget.min-per-second=2",
				"retry.instances.billing.base-config=careful", "retry.instances.billing.budget.max-tokens=20")
			.run(context -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				assertThat(registry.template("orders").getBudget().getConfig()).isEqualTo(RetryBudgetConfig.builder()
					.ratio(0.1).window(Duration.ofSeconds(5)).minPerSecond(2).build());
				assertThat(registry.template("billing").getBudget().getConfig())
					.isEqualTo(RetryBudgetConfig.builder().maxTokens(20).build());
			});
	}

	@Test
	void aRatioTogetherWithMaxTokensFailsStartupNamingBoth() {
		this.runner.withPropertyValues("retry.instances.inventory.budget.ratio=0.2",
				"retry.instances.inventory.budget.max-tokens=10").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.inventory.budget.ratio'", "'0.2'",
							"'retry.instances.inventory.budget.max-tokens' (10)");
					assertThat(analysis.getAction()).contains("retry.instances.inventory.budget.ratio",
							"retry.instances.inventory.budget.max-tokens");
				});
		this.runner.withPropertyValues("retry.defaults.budget.token-ratio=0.5", "retry.defaults.budget.ratio=0.2")
			.run(context -> assertThat(analysis(context.getStartupFailure()).getDescription())
				.contains("'retry.defaults.budget.ratio'", "'retry.defaults.budget.token-ratio' (0.5)"));
	}

	@Test
	void aRatioBudgetsSettingOnATokenBucketFailsStartupNamingIt() {
		this.runner.withPropertyValues("retry.instances.inventory.budget.max-tokens=10",
				"retry.instances.inventory.budget.window=5s").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("'retry.instances.inventory.budget.window'", "'5s'",
							"ratio budget's setting");
					assertThat(analysis.getAction()).contains("retry.instances.inventory.budget.ratio");
				});
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			retry.instances.inventory.budget.ratio | 0.0 | must be greater than 0 and at most 10
			retry.instances.inventory.budget.ratio | 10.5 | must be greater than 0 and at most 10
			retry.instances.inventory.budget.ratio | -0.2 | must be greater than 0 and at most 10
			retry.instances.inventory.budget.min-per-second | -1 | must be 0 or greater
			retry.instances.inventory.budget.window | 500ms | must be between 1s and 60s
			retry.instances.inventory.budget.window | 2m | must be between 1s and 60s
			""")
	void anInvalidRatioSettingFailsStartupNamingThePropertyAndWhatIsAllowed(String property, String value, String rule) {
		String[] properties = property.endsWith(".ratio") ? new String[] { property + "=" + value }
				: new String[] { "retry.instances.inventory.budget.ratio=0.2", property + "=" + value };
		this.runner.withPropertyValues(properties).run(context -> {
			FailureAnalysis analysis = analysis(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'" + property + "'", "'" + value + "'", rule)
				.doesNotContain("minPerSecond");
			assertThat(analysis.getAction()).contains(property);
		});
	}

	@Test
	void instancesSharingABudgetMustAgreeOnItsKind() {
		this.runner.withPropertyValues("retry.instances.orders.budget.name=shop", "retry.instances.orders.budget.ratio=0.2",
				"retry.instances.billing.budget.name=shop", "retry.instances.billing.budget.max-tokens=10").run(context -> {
					FailureAnalysis analysis = analysis(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("ratio", "'shop'", "retry.instances.orders",
							"retry.instances.billing");
				});
	}

}
