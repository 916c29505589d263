package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryConfigBuilder;
import dev.retrykit.RetryRegistryBuilder;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.backoff.BackoffPolicyBuilder;
import dev.retrykit.backoff.BackoffType;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.budget.RetryBudgetConfigBuilder;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.circuit.CircuitBreakerConfigBuilder;
import dev.retrykit.hedging.HedgingConfig;
import dev.retrykit.hedging.HedgingConfigBuilder;
import dev.retrykit.policy.StatusCodes;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.StatusExtractor;
import dev.retrykit.spring.boot.convert.CompoundDurationConverter;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Turns {@link RetryProperties} into core configurations: the one place where property inheritance
 * is resolved. The defaults are built first; each config and instance is declared on the
 * {@link RetryRegistryBuilder} with its base, and its own settings are applied on a builder that
 * starts from the already built base, so only the values that are set change anything. The
 * {@link BaseConfigChain} of a group is consulted only where a built base cannot answer: the delay
 * hint, one core extractor made of two properties that are inherited each on its own, and failures
 * whose conflicting value is inherited, which say where that value was set.
 *
 * <p>Every value is validated by the core builders; a failure is rethrown as an
 * {@link InvalidRetryPropertyException} that names the property path, the value and the rule.
 * Bean names ({@code retry-on-result}, {@code delay-hint}) are resolved in the bean factory. Not
 * thread-safe; used once at startup.
 */
public final class RetryPropertiesMapper {

	private static final String PREFIX = "retry";

	private final ListableBeanFactory beans;

	private final @Nullable ClassLoader classLoader;

	private final List<StatusExtractor> statusExtractors;

	private final @Nullable DelayHintExtractor retryAfter;

	private final SharedBudgets sharedBudgets = new SharedBudgets();

	private final boolean resolveBeans;

	/**
	 * @param beans where bean names are looked up
	 * @param classLoader loads the exception classes
	 * @param statusExtractors added to the defaults, so that every instance has them
	 * @param retryAfter the {@code Retry-After} extractor, or {@code null} when spring-web is absent
	 */
	RetryPropertiesMapper(ListableBeanFactory beans, @Nullable ClassLoader classLoader,
			List<StatusExtractor> statusExtractors, @Nullable DelayHintExtractor retryAfter) {
		this(beans, classLoader, statusExtractors, retryAfter, true);
	}

	/**
	 * @param resolveBeans {@code false} to check bean names without creating the beans (startup validation, which
	 * runs before any bean exists): each named bean stands in as a no-op of its type
	 */
	RetryPropertiesMapper(ListableBeanFactory beans, @Nullable ClassLoader classLoader,
			List<StatusExtractor> statusExtractors, @Nullable DelayHintExtractor retryAfter, boolean resolveBeans) {
		this.resolveBeans = resolveBeans;
		this.beans = beans;
		this.classLoader = classLoader;
		this.statusExtractors = List.copyOf(statusExtractors);
		this.retryAfter = retryAfter;
	}

	/**
	 * Declares the defaults, configs and instances on a registry builder.
	 * @param properties the bound properties
	 * @param registry the builder
	 * @throws InvalidRetryPropertyException if a value is invalid
	 */
	void applyTo(RetryProperties properties, RetryRegistryBuilder registry) {
		RetryInstanceProperties defaults = properties.getDefaults();
		if (defaults.getBaseConfig() != null) {
			throw new InvalidRetryPropertyException(PREFIX + ".defaults.base-config", defaults.getBaseConfig(),
					"the defaults are the root of every config and cannot inherit",
					"Remove 'retry.defaults.base-config', or move these settings to a config under retry.configs.", null);
		}
		RetryConfigBuilder base = RetryConfig.builder().statusExtractors(this.statusExtractors);
		BaseConfigChain defaultsChain = BaseConfigChain.ofDefaults(PREFIX + ".defaults", defaults);
		apply(base, defaultsChain);
		registry.defaults(base.build());
		Map<String, RetryInstanceProperties> configs = properties.getConfigs();
		String configsPath = PREFIX + ".configs";
		configs.forEach((name, config) -> {
			String path = configsPath + "." + name;
			checkBase(path, config.getBaseConfig(), configs);
			BaseConfigChain chain = BaseConfigChain.of(path, config, configsPath, configs, defaultsChain);
			registry.config(name, config.getBaseConfig(), builder -> apply(builder, chain));
		});
		checkCycles(configs);
		properties.getInstances().forEach((name, instance) -> {
			String path = PREFIX + ".instances." + name;
			checkBase(path, instance.getBaseConfig(), configs);
			BaseConfigChain chain = BaseConfigChain.of(path, instance, configsPath, configs, defaultsChain);
			registry.instance(name, instance.getBaseConfig(), builder -> apply(builder, chain));
		});
		int capacity = properties.getContextCache().getCapacity();
		set(PREFIX + ".context-cache.capacity", capacity, registry::contextCacheCapacity);
	}

	private void apply(RetryConfigBuilder builder, BaseConfigChain chain) {
		RetryInstanceProperties properties = chain.own();
		String path = chain.path();
		// The builder starts from the base; building it once gives the base's values to start nested builders from.
		RetryConfig base = builder.build();
		set(path + ".max-attempts", properties.getMaxAttempts(), builder::maxAttempts);
		set(path + ".max-duration", properties.getMaxDuration(), builder::maxDuration);
		set(path + ".attempt-timeout", properties.getAttemptTimeout(), builder::attemptTimeout);
		set(path + ".stateful", properties.getStateful(), builder::stateful);
		set(path + ".failback.capacity", properties.getFailback().getCapacity(), builder::failbackCapacity);
		applyBackoff(builder, base, chain);
		if (properties.getRetryOn() != null) {
			builder.retryOn(exceptionTypes(path + ".retry-on", properties.getRetryOn()));
		}
		if (properties.getIgnore() != null) {
			builder.ignore(exceptionTypes(path + ".ignore", properties.getIgnore()));
		}
		if (properties.getNotRecoverable() != null) {
			builder.notRecoverable(exceptionTypes(path + ".not-recoverable", properties.getNotRecoverable()));
		}
		if (properties.getRetryOnResult() != null) {
			builder.retryOnResult(predicate(path + ".retry-on-result", properties.getRetryOnResult()));
		}
		applyDelayHint(builder, chain);
		RetryInstanceProperties.Match match = properties.getMatch();
		set(path + ".match.http-status", match.getHttpStatus(),
				spec -> builder.httpStatus(StatusCodes.parse(spec, StatusExtractor.Kind.HTTP)));
		set(path + ".match.grpc-status", match.getGrpcStatus(),
				spec -> builder.grpcStatus(StatusCodes.parse(spec, StatusExtractor.Kind.GRPC)));
		new NestedGroups(path).applyCircuitBreaker(builder, base, properties.getCircuitBreaker());
		new NestedGroups(path).applyBudget(builder, base, properties.getBudget());
		new NestedGroups(path).applyHedging(builder, base, properties.getHedging(),
				name -> bean(path + ".hedging.executor", name, Executor.class));
		RetryConfig mapped = checkHedging(builder, chain);
		if (path.startsWith(PREFIX + ".instances.")) {
			if (mapped.getBudget() != null && mapped.getBudgetName() != null) {
				this.sharedBudgets.declare(mapped.getBudgetName(), mapped.getBudget(), chain);
			}
		}
	}

	/**
	 * Builds the mapped config and checks what hedging rules out across settings: unlimited attempts,
	 * and stateful calls (whose one attempt per call has nothing to race).
	 */
	private RetryConfig checkHedging(RetryConfigBuilder builder, BaseConfigChain chain) {
		String path = chain.path();
		RetryConfig mapped;
		try {
			mapped = builder.build();
		}
		catch (IllegalArgumentException ex) {
			throw HedgingChecks.failure(path, ex);
		}
		if (mapped.isHedging() && mapped.isStateful()) {
			throw new InvalidRetryPropertyException(path + ".hedging.enabled", true,
					"a stateful instance runs one attempt per call and rethrows its failure, so it cannot hedge",
					"Set '" + path + ".hedging.enabled' to false, or '" + path + ".stateful' to false.", null);
		}
		return mapped;
	}

	private void applyBackoff(RetryConfigBuilder builder, RetryConfig base, BaseConfigChain chain) {
		RetryInstanceProperties.Backoff backoff = chain.own().getBackoff();
		if (backoff.getType() == null && backoff.getDelay() == null && backoff.getMultiplier() == null
				&& backoff.getMaxDelay() == null && backoff.getJitter() == null) {
			return;
		}
		String path = chain.path() + ".backoff";
		BackoffPolicy inherited = (base.getBackoff() instanceof BackoffPolicy policy) ? policy : BackoffPolicy.defaults();
		BackoffPolicyBuilder policy = BackoffPolicy.builder(inherited);
		set(path + ".type", backoff.getType(), type -> policy.type(BackoffType.fromId(type)));
		set(path + ".delay", backoff.getDelay(), policy::delay);
		set(path + ".multiplier", backoff.getMultiplier(), policy::multiplier);
		set(path + ".max-delay", backoff.getMaxDelay(), policy::maxDelay);
		set(path + ".jitter", backoff.getJitter(), policy::jitter);
		try {
			builder.backoff(policy.build());
		}
		catch (IllegalArgumentException ex) {
			// build() checks the rules that span settings; one of the two values may be inherited.
			Duration delay = Objects.requireNonNullElse(backoff.getDelay(), inherited.getDelay());
			Duration maxDelay = Objects.requireNonNullElse(backoff.getMaxDelay(), inherited.getMaxDelay());
			BackoffConflict conflict = new BackoffConflict(chain, path, ex);
			throw (maxDelay.compareTo(delay) < 0) ? conflict.delays(delay, maxDelay)
					: conflict.multiplier(
							(backoff.getType() != null) ? BackoffType.fromId(backoff.getType()) : inherited.getType(),
							Objects.requireNonNullElse(backoff.getMultiplier(), inherited.getMultiplier()));
		}
	}

	/**
	 * Resolves the delay hint through the chain: {@code delay-hint} and {@code honor-retry-after} are
	 * inherited each on its own, though the core config holds one extractor that combines them.
	 */
	private void applyDelayHint(RetryConfigBuilder builder, BaseConfigChain chain) {
		RetryInstanceProperties own = chain.own();
		String path = chain.path();
		if (Boolean.TRUE.equals(own.getHonorRetryAfter()) && this.retryAfter == null) {
			throw new InvalidRetryPropertyException(path + ".honor-retry-after", true,
					"Retry-After is read from Spring's HTTP client exceptions, but spring-web is not on the classpath",
					"Add spring-web (or a Spring HTTP client starter) to the application, or remove '" + path
							+ ".honor-retry-after'.", null);
		}
		if (own.getDelayHint() == null && own.getHonorRetryAfter() == null) {
			return; // the base's extractor, resolved the same way, stays
		}
		BaseConfigChain.Setting<String> hint = chain.nearest(RetryInstanceProperties::getDelayHint);
		DelayHintExtractor custom = (hint != null)
				? bean(hint.groupPath() + ".delay-hint", hint.value(), DelayHintExtractor.class) : null;
		BaseConfigChain.Setting<Boolean> honor = chain.nearest(RetryInstanceProperties::getHonorRetryAfter);
		// A base that honors Retry-After without spring-web has failed above, when it was applied.
		DelayHintExtractor retryAfterHint = (honor != null && honor.value()) ? this.retryAfter : null;
		if (custom != null && retryAfterHint != null) {
			builder.delayHint(new FirstDelayHint(custom, retryAfterHint));
		}
		else {
			builder.delayHint((custom != null) ? custom : retryAfterHint);
		}
	}

	private List<Class<? extends Throwable>> exceptionTypes(String path, List<String> names) {
		List<Class<? extends Throwable>> types = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			String name = names.get(i).trim();
			String itemPath = path + "[" + i + "]";
			Class<?> type;
			try {
				type = ClassUtils.forName(name, this.classLoader);
			}
			catch (ClassNotFoundException | LinkageError ex) {
				throw new InvalidRetryPropertyException(itemPath, name, "no class named '" + name + "' is on the classpath",
						"Update '" + itemPath + "' to the fully qualified name of an exception class, e.g. java.io.IOException.", ex);
			}
			if (!Throwable.class.isAssignableFrom(type)) {
				throw new InvalidRetryPropertyException(itemPath, name, "'" + name + "' is not a Throwable",
						"Update '" + itemPath + "' to the fully qualified name of an exception class, e.g. java.io.IOException.", null);
			}
			types.add(type.asSubclass(Throwable.class));
		}
		return types;
	}

	@SuppressWarnings("unchecked")
	private Predicate<Object> predicate(String path, String name) {
		return bean(path, name, Predicate.class);
	}

	private <T> T bean(String path, String name, Class<T> type) {
		if (!this.beans.containsBean(name) || !this.beans.isTypeMatch(name, type)) {
			String problem = this.beans.containsBean(name) ? "bean '" + name + "' is not a " + type.getName()
					: "no bean named '" + name + "' exists";
			throw new InvalidRetryPropertyException(path, name, problem, "Update '" + path + "' to the name of a "
					+ type.getName() + " bean; candidates: " + Arrays.toString(this.beans.getBeanNamesForType(type)) + ".",
					null);
		}
		return this.resolveBeans ? this.beans.getBean(name, type) : standIn(type);
	}

	@SuppressWarnings("unchecked")
	private static <T> T standIn(Class<T> type) {
		if (type == DelayHintExtractor.class) {
			return (T) (DelayHintExtractor) failure -> null;
		}
		if (type == Executor.class) {
			return (T) (Executor) Runnable::run;
		}
		return (T) (Predicate<Object>) value -> false;
	}

	private static void checkBase(String path, @Nullable String baseConfig, Map<String, RetryInstanceProperties> configs) {
		if (baseConfig != null && !configs.containsKey(baseConfig)) {
			String declared = configs.isEmpty() ? "Declare 'retry.configs." + baseConfig + "' (no config is declared under "
					+ "retry.configs yet), or remove '" + path + ".base-config' to inherit from retry.defaults."
					: "Update '" + path + ".base-config' to one of the declared configs " + configs.keySet()
							+ ", or declare 'retry.configs." + baseConfig + "'.";
			throw new InvalidRetryPropertyException(path + ".base-config", baseConfig,
					"no config named '" + baseConfig + "' is declared under retry.configs", declared, null);
		}
	}

	private static void checkCycles(Map<String, RetryInstanceProperties> configs) {
		for (String start : configs.keySet()) {
			List<String> chain = new ArrayList<>(List.of(start));
			// Every base config is declared: checkBase ran first.
			for (String next = configs.get(start).getBaseConfig(); next != null;
					next = Objects.requireNonNull(configs.get(next), "undeclared base config").getBaseConfig()) {
				chain.add(next);
				if (next.equals(start)) {
					String path = PREFIX + ".configs." + start + ".base-config";
					throw new InvalidRetryPropertyException(path, configs.get(start).getBaseConfig(),
							"configs inherit from each other in a cycle: " + String.join(" -> ", chain),
							"Update the base-config of one of " + chain + " so that the chain ends at the defaults.", null);
				}
				if (chain.size() > configs.size() + 1) {
					break;
				}
			}
		}
	}

	static <T> void set(String path, @Nullable T value, Consumer<T> setter) {
		if (value == null) {
			return;
		}
		try {
			setter.accept(value);
		}
		catch (IllegalArgumentException ex) {
			throw InvalidRetryPropertyException.of(path, display(value), ex);
		}
	}

	static @Nullable Object display(@Nullable Object value) {
		return (value instanceof Duration duration) ? CompoundDurationConverter.format(duration) : value;
	}

	/**
	 * The circuit-breaker and budget groups. A group is on when {@code enabled} says so, else when the
	 * base has one or the group sets anything (declaring a breaker is what gives an instance one, as in
	 * Dapr); it is tuned field by field from the base's. Settings are validated even under
	 * {@code enabled: false}, so a typo never passes unnoticed.
	 */
	private record NestedGroups(String path) {

		void applyCircuitBreaker(RetryConfigBuilder builder, RetryConfig base, RetryInstanceProperties.CircuitBreaker cb) {
			String group = this.path + ".circuit-breaker";
			CircuitBreakerConfig inherited = base.getCircuitBreaker();
			boolean configured = cb.getTrip() != null || cb.getInterval() != null || cb.getTimeout() != null
					|| cb.getMaxRequests() != null;
			applyGroup(cb.getEnabled(), inherited != null, configured, () -> {
				CircuitBreakerConfigBuilder config = (inherited != null) ? CircuitBreakerConfig.builder(inherited)
						: CircuitBreakerConfig.builder();
				set(group + ".trip", cb.getTrip(), config::trip);
				set(group + ".interval", cb.getInterval(), config::interval);
				set(group + ".timeout", cb.getTimeout(), config::timeout);
				set(group + ".max-requests", cb.getMaxRequests(), config::maxRequests);
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
				set(group + ".max-tokens", budget.getMaxTokens(), config::maxTokens);
				set(group + ".token-ratio", budget.getTokenRatio(), config::tokenRatio);
				set(group + ".ratio", budget.getRatio(), config::ratio);
				set(group + ".min-per-second", budget.getMinPerSecond(), config::minPerSecond);
				set(group + ".window", budget.getWindow(), config::window);
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
			set(group + ".enabled", hedging.getEnabled(), config::enabled);
			set(group + ".delay", hedging.getDelay(), delay -> {
				if ("adaptive".equalsIgnoreCase(delay.trim())) {
					config.adaptive();
				}
				else {
					config.delay(duration(group + ".delay", delay));
				}
			});
			set(group + ".quantile", hedging.getQuantile(), config::quantile);
			set(group + ".min-delay", hedging.getMinDelay(), config::minDelay);
			set(group + ".max-delay", hedging.getMaxDelay(), config::maxDelay);
			set(group + ".max-extra-load", hedging.getMaxExtraLoad(), config::maxExtraLoad);
			set(group + ".interrupt-losers", hedging.getInterruptLosers(), config::interruptLosers);
			// An empty name clears an executor inherited from the base config.
			set(group + ".executor", hedging.getExecutor(),
					name -> config.executor(name.isBlank() ? null : executors.apply(name.trim())));
			try {
				builder.hedging(config.build());
			}
			catch (IllegalArgumentException ex) {
				// build() checks min-delay against max-delay; either may be inherited.
				Duration minDelay = (hedging.getMinDelay() != null) ? hedging.getMinDelay()
						: (inherited != null) ? inherited.getMinDelay() : HedgingConfig.DEFAULT_MIN_DELAY;
				throw InvalidRetryPropertyException.of(group + ".min-delay", display(minDelay), ex);
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

	/**
	 * The application's delay hint, else the {@code Retry-After} header's. A record, so that mapping the same
	 * properties twice gives equal configurations (a live change compares them with equals).
	 */
	private record FirstDelayHint(DelayHintExtractor custom, DelayHintExtractor fallback) implements DelayHintExtractor {

		@Override
		public @Nullable Duration delayHint(Throwable failure) {
			Duration delay = this.custom.delayHint(failure);
			return (delay != null) ? delay : this.fallback.delayHint(failure);
		}

	}

}
