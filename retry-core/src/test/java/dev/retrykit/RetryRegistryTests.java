package dev.retrykit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.context.RetryContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RetryRegistryTests {

	@Test
	void instancesInheritFromTheirBaseConfigWhichInheritsFromTheDefaults() throws Exception {
		RetryRegistry registry = RetryRegistry.builder()
			.defaults(RetryConfig.builder().maxAttempts(5).maxDuration(Duration.ofSeconds(30)).build())
			.config("slow-backend", null, config -> config.backoff(BackoffPolicy.fixed(Duration.ofMillis(500))))
			.config("slower", "slow-backend", config -> config.maxAttempts(7))
			.instance("inventory", "slower", config -> config.maxAttempts(4))
			.instance("plain", null, config -> { })
			.build();
		RetryConfig inventory = registry.template("inventory").getConfig();
		assertThat(inventory.getMaxAttempts()).isEqualTo(4);
		assertThat(inventory.getBackoff()).isEqualTo(BackoffPolicy.fixed(Duration.ofMillis(500)));
		assertThat(inventory.getMaxDuration()).isEqualTo(Duration.ofSeconds(30));
		assertThat(registry.config("slower").orElseThrow().getMaxAttempts()).isEqualTo(7);
		assertThat(registry.template("plain").getConfig().getMaxAttempts()).isEqualTo(5);
		assertThat(registry.names()).containsExactly("inventory", "plain");
	}

	@Test
	void unknownNamesAreCreatedFromTheDefaultsOnFirstUseAndReused() throws Exception {
		RetryRegistry registry = RetryRegistry.builder()
			.defaults(RetryConfig.builder().maxAttempts(2).build()).build();
		assertThat(registry.find("payments")).isEmpty();
		RetryTemplate payments = registry.template("payments");
		assertThat(payments.getName()).isEqualTo("payments");
		assertThat(payments.getConfig().getMaxAttempts()).isEqualTo(2);
		assertThat(registry.template("payments")).isSameAs(payments);
	}

	@Test
	void aMissingBaseConfigIsReportedWithTheDeclaredOnes() throws Exception {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryRegistry.builder()
			.config("fast", null, config -> { })
			.instance("inventory", "slow", config -> { })
			.build())
			.withMessage("Base config 'slow' of instance 'inventory' is not declared; declared configs: [fast]");
	}

	@Test
	void aCycleOfBaseConfigsIsReported() throws Exception {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryRegistry.builder()
			.config("a", "b", config -> { })
			.config("b", "a", config -> { })
			.build())
			.withMessage("Retry configs inherit from each other in a cycle: a -> b -> a");
	}

	@Test
	void anInvalidSettingNamesTheInstance() throws Exception {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryRegistry.builder()
			.instance("inventory", null, config -> config.maxAttempts(0))
			.build())
			.withMessage("Invalid retry instance 'inventory': Invalid maxAttempts (0): must be 1 or greater, or -1 for unlimited");
	}

	@Test
	void listenersHearOfExistingAndNewInstances() throws Exception {
		RetryRegistry registry = RetryRegistry.builder().instance("declared", null, config -> { }).build();
		List<String> added = new ArrayList<>();
		registry.addListener(template -> added.add(template.getName()));
		registry.template("late");
		registry.template("late");
		assertThat(added).containsExactly("declared", "late");
	}

	@Test
	void listenersAndCustomizersApplyToEveryInstance() throws Exception {
		List<String> opened = new ArrayList<>();
		RetryRegistry registry = RetryRegistry.builder()
			.listener(new RetryListener() {
				@Override
				public boolean open(RetryContext context) {
					opened.add(context.getName());
					return true;
				}
			})
			.customizer(RetryTemplateCustomizer.forInstance("inventory", builder -> builder.maxAttempts(9)))
			.build();
		registry.template("inventory").execute(context -> "ok");
		registry.template("other").execute(context -> "ok");
		assertThat(opened).containsExactly("inventory", "other");
		assertThat(registry.template("inventory").getConfig().getMaxAttempts()).isEqualTo(9);
		assertThat(registry.template("other").getConfig().getMaxAttempts()).isEqualTo(3);
	}

	@Test
	void aBuilderChangedAfterBuildDoesNotChangeTheInstancesTheRegistryCreatesLater() throws Exception {
		List<String> opened = new ArrayList<>();
		RetryRegistryBuilder builder = RetryRegistry.builder();
		RetryRegistry registry = builder.build();
		builder.listener(new RetryListener() {
			@Override
			public boolean open(RetryContext context) {
				opened.add(context.getName());
				return true;
			}
		});
		builder.customizer((name, template) -> template.maxAttempts(9));
		RetryTemplate late = registry.template("late");
		late.execute(context -> "ok");
		assertThat(opened).isEmpty();
		assertThat(late.getConfig().getMaxAttempts()).isEqualTo(3);
	}

	@Test
	void budgetsAreSharedByName() throws Exception {
		RetryBudgetConfig budget = RetryBudgetConfig.builder().maxTokens(10).build();
		RetryRegistry registry = RetryRegistry.builder()
			.instance("a", null, config -> config.budget(budget, "downstream"))
			.instance("b", null, config -> config.budget(budget, "downstream"))
			.instance("c", null, config -> config.budget(budget, null))
			.build();
		assertThat(registry.template("a").getBudget()).isSameAs(registry.template("b").getBudget())
			.isSameAs(registry.budget("downstream").orElseThrow());
		assertThat(registry.template("c").getBudget()).isNotSameAs(registry.template("a").getBudget());
		assertThat(registry.template("c").getBudget().getName()).isEqualTo("c");
	}

	@Test
	void aSharedBudgetWithDifferentSettingsIsRejected() throws Exception {
		assertThatIllegalStateException().isThrownBy(() -> RetryRegistry.builder()
			.instance("a", null, config -> config.budget(RetryBudgetConfig.builder().maxTokens(10).build(), "shared"))
			.instance("b", null, config -> config.budget(RetryBudgetConfig.builder().maxTokens(20).build(), "shared"))
			.build())
			.withMessageContaining("Retry budget 'shared' is shared by instances with different settings");
	}

}
