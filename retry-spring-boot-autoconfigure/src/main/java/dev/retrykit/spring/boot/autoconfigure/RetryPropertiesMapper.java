package dev.retrykit.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryConfigBuilder;
import dev.retrykit.RetryRegistryBuilder;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.backoff.BackoffPolicyBuilder;
import dev.retrykit.backoff.BackoffType;
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
