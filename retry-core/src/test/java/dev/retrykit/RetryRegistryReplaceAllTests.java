package dev.retrykit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.budget.RetryBudgetConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryRegistryReplaceAllTests {

	private final VirtualTime time = new VirtualTime(Instant.parse("2026-11-23T10:00:00Z"));

	private RetryRegistryBuilder registry() {
		return RetryRegistry.builder().sleeper(this.time).timeSource(this.time);
	}

	private static RetryConfig attempts(int maxAttempts) {
		return RetryConfig.builder().maxAttempts(maxAttempts).build();
	}

	private static int attemptsOf(RetryTemplate template) {
		AtomicInteger attempts = new AtomicInteger();
		assertThatThrownBy(() -> template.execute(context -> {
			attempts.incrementAndGet();
			throw new IllegalStateException("down");
		})).isInstanceOf(IllegalStateException.class);
		return attempts.get();
	}

	@Test
	void whenTheSecondInstanceFailsItsDerivationTheFirstIsLeftUnchanged() {
		RetryRegistry registry = registry().instance("a", attempts(3)).instance("b", attempts(3)).build();
		RetryTemplate a = registry.template("a");
		RetryTemplate b = registry.template("b");
		b.variant(base -> {
			if (base.getMaxAttempts() > 5) {
				throw new IllegalArgumentException("at most 5 attempts here");
			}
			return base;
		});
		List<String> heard = new ArrayList<>();
		registry.addListener(new RetryRegistryListener() {

			@Override
			public void onInstanceAdded(RetryTemplate template) {
				heard.add("added " + template.getName());
			}

			@Override
			public void onInstanceReplaced(RetryTemplate template, RetryConfig previous) {
				heard.add("replaced " + template.getName());
			}

		});
		heard.clear();
		Map<String, RetryConfig> change = new LinkedHashMap<>();
		change.put("a", attempts(4));
		change.put("b", attempts(6));
		change.put("c", attempts(2));
		assertThatThrownBy(() -> registry.replaceAll(change)).hasMessage("at most 5 attempts here");
		assertThat(attemptsOf(a)).isEqualTo(3);
		assertThat(a.getReconfiguredAt()).isEmpty();
		assertThat(attemptsOf(b)).isEqualTo(3);
		assertThat(registry.find("c")).isEmpty();
		assertThat(registry.declaredNames()).containsExactlyInAnyOrder("a", "b");
		assertThat(heard).isEmpty();
	}

	@Test
	void aCreatedInstanceThatCannotBeBuiltLeavesTheReplacedOnesUnchanged() {
		RetryBudgetConfig ten = RetryBudgetConfig.builder().maxTokens(10).build();
		RetryBudgetConfig twenty = RetryBudgetConfig.builder().maxTokens(20).build();
		RetryRegistry registry = registry().instance("a", RetryConfig.builder().budget(ten, "shared").build())
			.build();
		Map<String, RetryConfig> change = new LinkedHashMap<>();
		change.put("a", RetryConfig.builder().maxAttempts(4).budget(ten, "shared").build());
		change.put("new", RetryConfig.builder().budget(twenty, "shared").build());
		assertThatThrownBy(() -> registry.replaceAll(change)).hasMessageContaining("shared by instances with different");
		assertThat(attemptsOf(registry.template("a"))).isEqualTo(3);
		assertThat(registry.find("new")).isEmpty();
	}

	@Test
	void everyInstanceOfAValidChangeIsSwappedAndAnnouncedInOrder() {
		RetryBudgetConfig ten = RetryBudgetConfig.builder().maxTokens(10).build();
		RetryBudgetConfig twenty = RetryBudgetConfig.builder().maxTokens(20).build();
		RetryRegistry registry = registry()
			.instance("a", RetryConfig.builder().budget(ten, "shared").build())
			.instance("b", RetryConfig.builder().budget(ten, "shared").build()).build();
		List<String> heard = new ArrayList<>();
		registry.addListener(new RetryRegistryListener() {

			@Override
			public void onInstanceAdded(RetryTemplate template) {
				heard.add("added " + template.getName());
			}

			@Override
			public void onInstanceReplaced(RetryTemplate template, RetryConfig previous) {
				heard.add("replaced " + template.getName());
			}

		});
		heard.clear();
		Map<String, RetryConfig> change = new LinkedHashMap<>();
		change.put("a", RetryConfig.builder().maxAttempts(4).budget(twenty, "shared").build());
		change.put("b", RetryConfig.builder().maxAttempts(2).budget(twenty, "shared").build());
		change.put("c", RetryConfig.builder().maxAttempts(5).budget(twenty, "shared").build());
		Map<String, RetryTemplate> replaced = registry.replaceAll(change);
		assertThat(replaced).containsOnlyKeys("a", "b", "c");
		assertThat(registry.template("a").getConfig().getMaxAttempts()).isEqualTo(4);
		assertThat(registry.template("b").getConfig().getMaxAttempts()).isEqualTo(2);
		assertThat(registry.template("c").getConfig().getMaxAttempts()).isEqualTo(5);
		assertThat(registry.template("a").getBudget()).isSameAs(registry.template("b").getBudget())
			.isSameAs(registry.template("c").getBudget()).isSameAs(registry.budget("shared").orElseThrow());
		assertThat(registry.template("a").getBudget().getMaxTokens()).isEqualTo(20);
		assertThat(heard).containsExactly("replaced a", "replaced b", "added c");
	}

}
