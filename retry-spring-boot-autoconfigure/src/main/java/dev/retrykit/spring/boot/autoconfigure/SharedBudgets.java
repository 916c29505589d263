package dev.retrykit.spring.boot.autoconfigure;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import dev.retrykit.budget.RetryBudgetConfig;
import org.jspecify.annotations.Nullable;

/**
 * The budgets that instances share by name, checked as each instance is mapped: instances that share a
 * budget must agree on its settings, and a conflict is reported in property terms, naming both instances'
 * properties, their values and where an inherited value was set. Not thread-safe; used once at startup.
 */
final class SharedBudgets {

	private final Map<String, Declaration> byName = new HashMap<>();

	/**
	 * @param name the budget name
	 * @param config the instance's effective budget settings
	 * @param chain the instance's groups, to say where each setting was set
	 * @throws InvalidRetryPropertyException if an instance mapped before shares the name with other settings
	 */
	void declare(String name, RetryBudgetConfig config, BaseConfigChain chain) {
		Declaration first = this.byName.putIfAbsent(name, new Declaration(config, chain));
		if (first == null || first.chain.path().equals(chain.path()) || first.config.equals(config)) {
			return;
		}
		Difference difference = Difference.between(first.config, config);
		String setting = difference.setting();
		Function<BudgetProperties, @Nullable Object> getter = difference.property();
		@Nullable Object value = difference.value().apply(config);
		@Nullable Object otherValue = difference.value().apply(first.config);
		String property = chain.path() + ".budget." + setting;
		String other = first.chain.path() + ".budget." + setting;
		throw new InvalidRetryPropertyException(property, value, "the retry budget '" + name + "' is also used by '"
				+ first.chain.path() + "', whose " + setting + " is " + otherValue + " (" + where(first.chain, setting, getter)
				+ "), and instances that share a budget must agree on its kind and settings (this " + setting
				+ " is " + where(chain, setting, getter) + ")",
				"Set '" + property + "' and '" + other + "' to the same value, or give '" + chain.path()
						+ ".budget.name' another name so that each instance has its own budget.", null);
	}

	/** Where a budget setting of the instance comes from: its own property, a base's, or the built-in default. */
	private static String where(BaseConfigChain chain, String setting,
			Function<BudgetProperties, @Nullable Object> getter) {
		BaseConfigChain.Setting<Object> found = chain.nearest(group -> getter.apply(group.getBudget()));
		if (found == null) {
			return "the built-in default";
		}
		String path = found.groupPath() + ".budget." + setting;
		return found.groupPath().equals(chain.path()) ? "set at '" + path + "'" : "inherited from '" + path + "'";
	}

	private record Declaration(RetryBudgetConfig config, BaseConfigChain chain) {
	}

	/** The first setting in which two budget configurations differ, read from a configuration and from properties. */
	private record Difference(String setting, Function<RetryBudgetConfig, @Nullable Object> value,
			Function<BudgetProperties, @Nullable Object> property) {

		static Difference between(RetryBudgetConfig first, RetryBudgetConfig second) {
			if (first.getKind() != second.getKind() || first.getRatio() != second.getRatio()) {
				return new Difference("ratio", config -> (config.getKind() == RetryBudgetConfig.Kind.RATIO)
						? config.getRatio() : "unset (a token bucket)", BudgetProperties::getRatio);
			}
			if (first.getKind() == RetryBudgetConfig.Kind.RATIO) {
				return (first.getMinPerSecond() != second.getMinPerSecond())
						? new Difference("min-per-second", RetryBudgetConfig::getMinPerSecond,
								BudgetProperties::getMinPerSecond)
						: new Difference("window", config -> RetryPropertiesMapper.display(config.getWindow()),
								BudgetProperties::getWindow);
			}
			return (first.getMaxTokens() != second.getMaxTokens())
					? new Difference("max-tokens", RetryBudgetConfig::getMaxTokens, BudgetProperties::getMaxTokens)
					: new Difference("token-ratio", RetryBudgetConfig::getTokenRatio,
							BudgetProperties::getTokenRatio);
		}

	}

}
