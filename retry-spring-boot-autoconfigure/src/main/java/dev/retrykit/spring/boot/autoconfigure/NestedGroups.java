package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryConfigBuilder;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.budget.RetryBudgetConfigBuilder;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitBreakerConfigBuilder;
import dev.retrykit.hedging.HedgingConfig;
import dev.retrykit.hedging.HedgingConfigBuilder;
import dev.retrykit.spring.boot.convert.CompoundDurationConverter;
import org.jspecify.annotations.Nullable;

/**
 * The nested groups of one instance's or config's properties, mapped onto its builder for
 * {@link RetryPropertiesMapper}: the circuit-breaker and budget groups, on when {@code enabled} says so, else
 * when the base has one or the group sets anything (declaring a breaker is what gives an instance one, as in
 * Dapr), tuned field by field from the base's; and the hedging group. Settings are validated even under
 * {@code enabled: false}, so a typo never passes unnoticed. Stateless.
 * @param path the property path of the instance or config, e.g. {@code retry.instances.inventory}
 */
record NestedGroups(String path) {

	void applyCircuitBreaker(RetryConfigBuilder builder, RetryConfig base, RetryInstanceProperties.CircuitBreaker cb) {
		String group = this.path + ".circuit-breaker";
		CircuitBreakerConfig inherited = base.getCircuitBreaker();
		boolean configured = cb.getTrip() != null || cb.getInterval() != null || cb.getTimeout() != null
				|| cb.getMaxRequests() != null;
		applyGroup(cb.getEnabled(), inherited != null, configured, () -> {
			CircuitBreakerConfigBuilder config = (inherited != null) ? CircuitBreakerConfig.builder(inherited)
					: CircuitBreakerConfig.builder();
			RetryPropertiesMapper.set(group + ".trip", cb.getTrip(), config::trip);
			RetryPropertiesMapper.set(group + ".interval", cb.getInterval(), config::interval);
			RetryPropertiesMapper.set(group + ".timeout", cb.getTimeout(), config::timeout);
			RetryPropertiesMapper.set(group + ".max-requests", cb.getMaxRequests(), config::maxRequests);
			try {
				return config.build();
			}
			catch (IllegalArgumentException ex) {
				// build() parses the trip expression.
				throw InvalidRetryPropertyException.of(group + ".trip",
						Objects.requireNonNullElse(cb.getTrip(), CircuitBreakerConfig.DEFAULT_TRIP), ex);
			}
		}, builder::circuitBreaker, () -> builder.circuitBreaker(null));
	}

	void applyBudget(RetryConfigBuilder builder, RetryConfig base, BudgetProperties budget) {
		String group = this.path + ".budget";
		RetryBudgetConfig inherited = base.getBudget();
		boolean configured = budget.getMaxTokens() != null || budget.getTokenRatio() != null
				|| budget.getName() != null || budget.getRatio() != null || budget.getMinPerSecond() != null
				|| budget.getWindow() != null;
		applyGroup(budget.getEnabled(), inherited != null, configured, () -> {
			BudgetKinds.check(group, budget, inherited);
			RetryBudgetConfigBuilder config = (inherited != null) ? RetryBudgetConfig.builder(inherited)
					: RetryBudgetConfig.builder();
			RetryPropertiesMapper.set(group + ".max-tokens", budget.getMaxTokens(), config::maxTokens);
			RetryPropertiesMapper.set(group + ".token-ratio", budget.getTokenRatio(), config::tokenRatio);
			RetryPropertiesMapper.set(group + ".ratio", budget.getRatio(), config::ratio);
			RetryPropertiesMapper.set(group + ".min-per-second", budget.getMinPerSecond(), config::minPerSecond);
			RetryPropertiesMapper.set(group + ".window", budget.getWindow(), config::window);
			return config.build();
		}, built -> builder.budget(built, (budget.getName() != null) ? budget.getName() : base.getBudgetName()),
				() -> builder.budget(null, null));
	}

	/**
	 * Hedging is on only when {@code enabled} says so (here or in the base): sending copies of a call is
	 * safe for idempotent operations only, so setting a delay alone never turns it on. The settings
	 * are validated even while it is off.
	 */
	void applyHedging(RetryConfigBuilder builder, RetryConfig base, HedgingProperties hedging,
			Function<String, Executor> executors) {
		String group = this.path + ".hedging";
		HedgingConfig inherited = base.getHedging();
		if (hedging.getEnabled() == null && hedging.getDelay() == null && hedging.getQuantile() == null
				&& hedging.getMinDelay() == null && hedging.getMaxDelay() == null && hedging.getExecutor() == null
				&& hedging.getMaxExtraLoad() == null && hedging.getInterruptLosers() == null) {
			return;
		}
		HedgingConfigBuilder config = (inherited != null) ? HedgingConfig.builder(inherited)
				: HedgingConfig.builder().enabled(false);
		RetryPropertiesMapper.set(group + ".enabled", hedging.getEnabled(), config::enabled);
		RetryPropertiesMapper.set(group + ".delay", hedging.getDelay(), delay -> {
			if ("adaptive".equalsIgnoreCase(delay.trim())) {
				config.adaptive();
			}
			else {
				config.delay(duration(group + ".delay", delay));
			}
		});
		RetryPropertiesMapper.set(group + ".quantile", hedging.getQuantile(), config::quantile);
		RetryPropertiesMapper.set(group + ".min-delay", hedging.getMinDelay(), config::minDelay);
		RetryPropertiesMapper.set(group + ".max-delay", hedging.getMaxDelay(), config::maxDelay);
		RetryPropertiesMapper.set(group + ".max-extra-load", hedging.getMaxExtraLoad(), config::maxExtraLoad);
		RetryPropertiesMapper.set(group + ".interrupt-losers", hedging.getInterruptLosers(), config::interruptLosers);
		// An empty name clears an executor inherited from the base config.
		RetryPropertiesMapper.set(group + ".executor", hedging.getExecutor(),
				name -> config.executor(name.isBlank() ? null : executors.apply(name.trim())));
		try {
			builder.hedging(config.build());
		}
		catch (IllegalArgumentException ex) {
			// build() checks min-delay against max-delay; either may be inherited.
			Duration minDelay = (hedging.getMinDelay() != null) ? hedging.getMinDelay()
					: (inherited != null) ? inherited.getMinDelay() : HedgingConfig.DEFAULT_MIN_DELAY;
			throw InvalidRetryPropertyException.of(group + ".min-delay", RetryPropertiesMapper.display(minDelay), ex);
		}
	}

	private static Duration duration(String path, String text) {
		try {
			return new CompoundDurationConverter().convert(text);
		}
		catch (IllegalArgumentException compound) {
			try {
				return org.springframework.boot.convert.DurationStyle.detectAndParse(text.trim());
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidRetryPropertyException(path, text, "it is neither 'adaptive' nor a duration",
						"Update '" + path + "' to adaptive or a duration such as 10ms (0 sends every copy at once).", ex);
			}
		}
	}

	/**
	 * @param enabledSetting the group's {@code enabled}, or {@code null} when unset
	 * @param inherited whether the base has the feature
	 * @param configured whether the group sets anything besides {@code enabled}
	 * @param build builds (and so validates) the group's config
	 * @param enable gives the instance the built config
	 * @param disable removes the feature inherited from the base
	 */
	private static <C> void applyGroup(@Nullable Boolean enabledSetting, boolean inherited, boolean configured,
			Supplier<C> build, Consumer<C> enable, Runnable disable) {
		boolean enabled = (enabledSetting != null) ? enabledSetting : (inherited || configured);
		if (enabled || configured) {
			C built = build.get();
			if (enabled) {
				enable.accept(built);
				return;
			}
		}
		if (enabledSetting != null) {
			disable.run();
		}
	}

}
