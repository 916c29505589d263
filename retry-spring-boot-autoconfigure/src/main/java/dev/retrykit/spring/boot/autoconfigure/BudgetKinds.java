package dev.retrykit.spring.boot.autoconfigure;

import dev.retrykit.budget.RetryBudgetConfig;
import org.jspecify.annotations.Nullable;

/**
 * Checks that a budget group's settings belong to one kind of budget, in property terms: {@code ratio}
 * chooses a ratio budget, {@code max-tokens} and {@code token-ratio} are a token bucket's, and
 * {@code min-per-second} and {@code window} a ratio budget's. An instance may switch the kind its base
 * config chose by setting the other kind's main setting.
 */
final class BudgetKinds {

	private BudgetKinds() {
	}

	/**
	 * @param group the budget group's path, e.g. {@code retry.instances.inventory.budget}
	 * @param budget the group's settings
	 * @param inherited the base's budget, or {@code null}
	 * @throws InvalidRetryPropertyException naming both properties when the group mixes the kinds
	 */
	static void check(String group, BudgetProperties budget, @Nullable RetryBudgetConfig inherited) {
		Double ratio = budget.getRatio();
		if (ratio != null && (budget.getMaxTokens() != null || budget.getTokenRatio() != null)) {
			String other = (budget.getMaxTokens() != null) ? group + ".max-tokens" : group + ".token-ratio";
			Object otherValue = (budget.getMaxTokens() != null) ? (Object) budget.getMaxTokens() : budget.getTokenRatio();
			throw new InvalidRetryPropertyException(group + ".ratio", ratio, "it is set together with '" + other + "' ("
					+ otherValue + "): ratio chooses a ratio budget, max-tokens and token-ratio are a token bucket's",
					"Keep either '" + group + ".ratio' (with min-per-second and window) or '" + other
							+ "' (with max-tokens and token-ratio), not both.", null);
		}
		boolean tokenBucket = (ratio == null) && (budget.getMaxTokens() != null || budget.getTokenRatio() != null
				|| inherited == null || inherited.getKind() == RetryBudgetConfig.Kind.TOKEN_BUCKET);
		if (tokenBucket && (budget.getMinPerSecond() != null || budget.getWindow() != null)) {
			String setting = (budget.getMinPerSecond() != null) ? group + ".min-per-second" : group + ".window";
			Object value = (budget.getMinPerSecond() != null) ? (Object) budget.getMinPerSecond()
					: RetryPropertiesMapper.display(budget.getWindow());
			throw new InvalidRetryPropertyException(setting, value, "it is a ratio budget's setting, and this budget is a "
					+ "token bucket ('" + group + ".ratio' is not set)",
					"Set '" + group + ".ratio' to choose a ratio budget, or remove '" + setting + "'.", null);
		}
	}

}
