package dev.retrykit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryRegistryReplaceTests {

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
	void aTemplateHandedOutBeforeTheChangeUsesTheNewConfigOnItsNextCallAndKeepsItsCounts() {
		RetryRegistry registry = registry().instance("inventory", attempts(3)).build();
		RetryTemplate inventory = registry.template("inventory");
		assertThat(attemptsOf(inventory)).isEqualTo(3);
		RetryTemplate replaced = registry.replace("inventory", attempts(5));
		assertThat(replaced).isSameAs(inventory);
		assertThat(attemptsOf(inventory)).isEqualTo(5);
		assertThat(inventory.getConfig().getMaxAttempts()).isEqualTo(5);
		assertThat(inventory.getMetrics().getFailedCallsWithRetry()).isEqualTo(2);
		assertThat(inventory.getMetrics().getAttempts()).isEqualTo(8);
		assertThat(registry.template("undeclared").getConfig().getMaxAttempts()).isEqualTo(3);
	}

	@Test
	void aCallInFlightFinishesOnTheConfigItStartedWith() {
		RetryRegistry registry = registry().instance("inventory", attempts(4)).build();
		RetryTemplate inventory = registry.template("inventory");
		AtomicInteger attempts = new AtomicInteger();
		assertThatThrownBy(() -> inventory.execute(context -> {
			if (attempts.incrementAndGet() == 1) {
				registry.replace("inventory", attempts(1));
			}
			throw new IllegalStateException("down");
		})).isInstanceOf(IllegalStateException.class);
		assertThat(attempts).hasValue(4);
		assertThat(attemptsOf(inventory)).isEqualTo(1);
	}

	@Test
	void whenTheTripExpressionChangesTheBreakerKeepsItsCountsAndAppliesTheNewTripOnItsNextEvaluation() {
		CircuitBreakerConfig lenient = CircuitBreakerConfig.builder().trip("consecutiveFailures >= 10").build();
		RetryRegistry registry = registry()
			.instance("inventory", RetryConfig.builder().maxAttempts(1).circuitBreaker(lenient).build()).build();
		RetryTemplate inventory = registry.template("inventory");
		CircuitBreaker breaker = inventory.getCircuitBreaker();
		attemptsOf(inventory);
		attemptsOf(inventory);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		CircuitBreakerConfig strict = CircuitBreakerConfig.builder().trip("consecutiveFailures >= 3").build();
		registry.replace("inventory", RetryConfig.builder().maxAttempts(1).circuitBreaker(strict).build());
		assertThat(inventory.getCircuitBreaker()).isSameAs(breaker);
		assertThat(breaker.getConfig()).isEqualTo(strict);
		assertThat(breaker.getState()).isEqualTo(CircuitState.CLOSED);
		attemptsOf(inventory);
		assertThat(breaker.getState()).isEqualTo(CircuitState.OPEN);
	}

	@Test
	void aBreakerAddedByTheChangeStartsClosedAndARemovedOneIsDropped() {
		RetryRegistry registry = registry().instance("inventory", attempts(1)).build();
		RetryTemplate inventory = registry.template("inventory");
		assertThat(inventory.getCircuitBreaker()).isNull();
		CircuitBreakerConfig breakerConfig = CircuitBreakerConfig.builder().trip("consecutiveFailures >= 1").build();
		registry.replace("inventory", RetryConfig.builder().maxAttempts(1).circuitBreaker(breakerConfig).build());
		assertThat(inventory.getCircuitBreaker().getState()).isEqualTo(CircuitState.CLOSED);
		attemptsOf(inventory);
		assertThat(inventory.getCircuitBreaker().getState()).isEqualTo(CircuitState.OPEN);
		registry.replace("inventory", attempts(2));
		assertThat(inventory.getCircuitBreaker()).isNull();
		assertThat(attemptsOf(inventory)).isEqualTo(2);
	}

	@Test
	void budgetTokensCarryOverAlsoWhenTheBudgetSettingsChange() {
		RetryBudgetConfig ten = RetryBudgetConfig.builder().maxTokens(10).build();
		RetryRegistry registry = registry()
			.instance("inventory", RetryConfig.builder().maxAttempts(3).budget(ten, null).build()).build();
		RetryTemplate inventory = registry.template("inventory");
		attemptsOf(inventory);
		RetryBudget budget = inventory.getBudget();
		assertThat(budget.getTokens()).isEqualTo(7.0);
		registry.replace("inventory", RetryConfig.builder().maxAttempts(2).budget(ten, null).build());
		assertThat(inventory.getBudget()).isSameAs(budget);
		RetryBudgetConfig twenty = RetryBudgetConfig.builder().maxTokens(20).build();
		registry.replace("inventory", RetryConfig.builder().maxAttempts(2).budget(twenty, null).build());
		assertThat(inventory.getBudget().getTokens()).isEqualTo(7.0);
		assertThat(inventory.getBudget().getMaxTokens()).isEqualTo(20);
		assertThat(registry.budget("inventory")).containsSame(inventory.getBudget());
	}

	@Test
	void instancesSharingABudgetWhoseSettingsChangeJoinTheNewBudgetAsEachIsReplaced() {
		RetryBudgetConfig ten = RetryBudgetConfig.builder().maxTokens(10).build();
		RetryRegistry registry = registry()
			.instance("a", RetryConfig.builder().maxAttempts(3).budget(ten, "shared").build())
			.instance("b", RetryConfig.builder().maxAttempts(3).budget(ten, "shared").build()).build();
		attemptsOf(registry.template("b"));
		RetryBudget old = registry.template("b").getBudget();
		RetryBudgetConfig twenty = RetryBudgetConfig.builder().maxTokens(20).build();
		registry.replace("a", RetryConfig.builder().maxAttempts(5).budget(twenty, "shared").build());
		assertThat(registry.template("a").getBudget().getTokens()).isEqualTo(7.0);
		assertThat(registry.template("b").getBudget()).isSameAs(old);
		registry.replace("b", RetryConfig.builder().maxAttempts(5).budget(twenty, "shared").build());
		assertThat(registry.template("b").getBudget()).isSameAs(registry.template("a").getBudget())
			.isSameAs(registry.budget("shared").orElseThrow());
	}

	@Test
	void registryListenersHearOfReplacedInstancesAndOfInstancesTheReplaceCreates() {
		RetryRegistry registry = registry().instance("inventory", attempts(3)).build();
		List<String> heard = new ArrayList<>();
		registry.addListener(new RetryRegistryListener() {

			@Override
			public void onInstanceAdded(RetryTemplate template) {
				heard.add("added " + template.getName());
			}

			@Override
			public void onInstanceReplaced(RetryTemplate template, RetryConfig previous) {
				heard.add("replaced " + template.getName() + " " + previous.getMaxAttempts() + "->"
						+ template.getConfig().getMaxAttempts());
			}

		});
		registry.replace("inventory", attempts(5));
		RetryTemplate payments = registry.replace("payments", attempts(2));
		assertThat(heard).containsExactly("added inventory", "replaced inventory 3->5", "added payments");
		assertThat(payments.getConfig().getMaxAttempts()).isEqualTo(2);
		assertThat(payments.getReconfiguredAt()).isEmpty();
		assertThat(registry.declaredNames()).contains("payments");
	}

	@Test
	void whenWasAnInstanceLastReconfiguredIsReadable() {
		RetryRegistry registry = registry().instance("inventory", attempts(3)).build();
		RetryTemplate inventory = registry.template("inventory");
		assertThat(inventory.getReconfiguredAt()).isEmpty();
		this.time.advance(Duration.ofMinutes(5));
		registry.replace("inventory", attempts(4));
		assertThat(inventory.getReconfiguredAt()).contains(Instant.parse("2026-11-23T10:05:00Z"));
	}

	@Test
	void aFollowingVariantIsDerivedAgainFromTheNewConfigAndAFixedVariantIsNot() {
		RetryRegistry registry = registry().instance("inventory", RetryConfig.builder().maxAttempts(3)
			.backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))).build()).build();
		RetryTemplate inventory = registry.template("inventory");
		RetryTemplate following = inventory.variant(base -> RetryConfig.builder(base)
			.backoff(BackoffPolicy.fixed(Duration.ofSeconds(7))).build());
		RetryTemplate fixed = inventory.variant(RetryConfig.builder(inventory.getConfig()).maxAttempts(2).build());
		registry.replace("inventory", RetryConfig.builder().maxAttempts(4)
			.backoff(BackoffPolicy.fixed(Duration.ofSeconds(1))).build());
		assertThat(attemptsOf(following)).isEqualTo(4);
		assertThat(this.time.sleeps()).containsOnly(Duration.ofSeconds(7));
		assertThat(attemptsOf(fixed)).isEqualTo(2);
		assertThat(inventory.getMetrics().getAttempts()).isEqualTo(6);
	}

	@Test
	void aDerivationThatFailsOnTheNewConfigRejectsTheChangeAndChangesNothing() {
		RetryRegistry registry = registry().instance("inventory", attempts(3)).build();
		RetryTemplate inventory = registry.template("inventory");
		RetryTemplate following = inventory.variant(base -> {
			if (base.getMaxAttempts() > 5) {
				throw new IllegalArgumentException("at most 5 attempts here");
			}
			return base;
		});
		assertThatThrownBy(() -> registry.replace("inventory", attempts(6))).hasMessage("at most 5 attempts here");
		assertThat(attemptsOf(inventory)).isEqualTo(3);
		assertThat(attemptsOf(following)).isEqualTo(3);
		assertThat(inventory.getReconfiguredAt()).isEmpty();
	}


	/** What the registry's listeners hear from now on: "added name" and "replaced name". */
	private static List<String> heardBy(RetryRegistry registry) {
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
		heard.clear(); // addListener replays the instances that exist already
		return heard;
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
		List<String> heard = heardBy(registry);
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
		List<String> heard = heardBy(registry);
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
