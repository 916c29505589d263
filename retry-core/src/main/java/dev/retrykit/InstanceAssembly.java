package dev.retrykit;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.failback.FailbackListener;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link RetryRegistry}'s instances from what its builder gave (sleeper, time source, scheduler,
 * listeners, customizers, context caches), and keeps the retry budgets they share by name. A change builds
 * or derives every instance it touches first, collecting the budgets it creates in a map of its own, and
 * only {@link #addBudgets adds} them once all succeeded, so that a failed change leaves no budget behind.
 * Thread-safe; the registry serializes the changes.
 */
final class InstanceAssembly {

	private final Settings settings;

	private final ConcurrentMap<String, RetryBudget> budgets = new ConcurrentHashMap<>();

	InstanceAssembly(RetryRegistryBuilder builder) {
		this.settings = Settings.of(builder);
	}

	/** {@return what the registry gives the instances it creates} */
	Settings settings() {
		return this.settings;
	}

	/**
	 * Builds an instance; puts nothing in the registry.
	 * @param newBudgets budgets the caller is about to add, by name; a budget created here is added
	 * @throws IllegalStateException when the instance would share a budget with different settings
	 */
	RetryTemplate create(String name, RetryConfig config, Map<String, RetryBudget> newBudgets) {
		RetryTemplateBuilder builder = RetryTemplate.builder().name(name).config(config)
			.sleeper(this.settings.sleeper).timeSource(this.settings.timeSource)
			.eventBufferSize(this.settings.eventBufferSize).listeners(this.settings.listeners)
			.contextCache(this.settings.contextCaches.apply(name));
		if (this.settings.scheduler != null) {
			builder.scheduler(this.settings.scheduler);
		}
		RetryBudgetConfig budgetConfig = config.getBudget();
		if (budgetConfig != null) {
			builder.budget(sharedBudget(budgetName(name, config), budgetConfig, newBudgets));
		}
		applyCustomizers(name, builder);
		return builder.build();
	}

	/**
	 * {@return an instance's configuration as its customizers make it from the one declared}
	 * @param name the instance name
	 * @param config the declared configuration
	 */
	RetryConfig customized(String name, RetryConfig config) {
		return applyCustomizers(name, RetryTemplate.builder().name(name).config(config)).buildConfig();
	}

	/**
	 * The budget an existing instance has after a change to {@code config}: the one of its name when it has
	 * the same settings, else a budget of the new settings that takes the old one's tokens over.
	 * @param name the instance name
	 * @param config the instance's new configuration
	 * @param newBudgets budgets this change creates so far, by name; a budget it creates is added
	 * @return the budget, or {@code null} when the new configuration has none
	 */
	@Nullable RetryBudget budgetAfterChange(String name, RetryConfig config, Map<String, RetryBudget> newBudgets) {
		RetryBudgetConfig budgetConfig = config.getBudget();
		if (budgetConfig == null) {
			return null;
		}
		String budgetName = budgetName(name, config);
		RetryBudget existing = budgetNamed(budgetName, newBudgets);
		if (existing != null && existing.getConfig().equals(budgetConfig)) {
			return existing;
		}
		RetryBudget budget = (existing == null) ? RetryBudget.create(budgetName, budgetConfig, this.settings.timeSource)
				: existing.withConfig(budgetConfig);
		newBudgets.put(budgetName, budget);
		return budget;
	}

	/**
	 * Adds the budgets a change created, once every instance of the change was built.
	 * @param newBudgets the budgets, by name
	 */
	void addBudgets(Map<String, RetryBudget> newBudgets) {
		this.budgets.putAll(newBudgets);
	}

	/**
	 * {@return the shared budget of that name, if an instance uses it}
	 * @param name a budget name
	 */
	Optional<RetryBudget> budget(String name) {
		return Optional.ofNullable(this.budgets.get(name));
	}

	private static String budgetName(String instanceName, RetryConfig config) {
		String budgetName = config.getBudgetName();
		return (budgetName != null) ? budgetName : instanceName;
	}

	/** The budget of that name this change creates, else the registry's. */
	private @Nullable RetryBudget budgetNamed(String budgetName, Map<String, RetryBudget> newBudgets) {
		RetryBudget created = newBudgets.get(budgetName);
		return (created != null) ? created : this.budgets.get(budgetName);
	}

	private RetryBudget sharedBudget(String budgetName, RetryBudgetConfig config, Map<String, RetryBudget> newBudgets) {
		RetryBudget budget = budgetNamed(budgetName, newBudgets);
		if (budget == null) {
			budget = RetryBudget.create(budgetName, config, this.settings.timeSource);
			newBudgets.put(budgetName, budget);
		}
		if (!budget.getConfig().equals(config)) {
			throw new IllegalStateException("Retry budget '" + budgetName + "' is shared by instances with different "
					+ "settings (" + budget.getConfig() + " and " + config + "); give them the same settings or "
					+ "different budget names");
		}
		return budget;
	}

	private RetryTemplateBuilder applyCustomizers(String name, RetryTemplateBuilder builder) {
		for (RetryTemplateCustomizer customizer : this.settings.customizers) {
			customizer.customize(name, builder);
		}
		return builder;
	}

	/**
	 * What the registry gives the instances it creates, copied from the builder at {@code build()}: a
	 * builder used again afterwards changes nothing here.
	 */
	record Settings(Sleeper sleeper, TimeSource timeSource, @Nullable RetryScheduler scheduler,
			List<RetryListener> listeners, List<RetryTemplateCustomizer> customizers, int eventBufferSize,
			int failbackExhaustedCapacity, List<FailbackListener> failbackListeners,
			Function<String, RetryContextCache> contextCaches) {

		static Settings of(RetryRegistryBuilder builder) {
			return new Settings(builder.sleeper, builder.timeSource, builder.scheduler, List.copyOf(builder.listeners),
					List.copyOf(builder.customizers), builder.eventBufferSize, builder.failbackExhaustedCapacity,
					List.copyOf(builder.failbackListeners), builder.contextCaches());
		}

	}

}
