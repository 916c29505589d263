package dev.retrykit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.retrykit.failback.FailbackListener;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link RetryRegistry}. Inheritance works by starting a builder from the already built base:
 * a shared config or an instance names its base config (or none, for the defaults), and its own
 * settings are applied on a {@link RetryConfig#builder(RetryConfig) builder of that base}. Bases are
 * resolved in {@link #build()}, which reports a missing base or a cycle. Not thread-safe.
 */
public final class RetryRegistryBuilder {

	private RetryConfig defaults = RetryConfig.defaults();

	private final Map<String, Definition> configs = new LinkedHashMap<>();

	private final Map<String, Definition> instances = new LinkedHashMap<>();

	Sleeper sleeper = Sleeper.THREAD_SLEEP;

	TimeSource timeSource = TimeSource.SYSTEM;

	@Nullable RetryScheduler scheduler;

	final List<RetryListener> listeners = new ArrayList<>();

	final List<RetryTemplateCustomizer> customizers = new ArrayList<>();

	int eventBufferSize = RetryTemplateBuilder.DEFAULT_EVENT_BUFFER_SIZE;

	int failbackExhaustedCapacity = 100;

	final List<FailbackListener> failbackListeners = new ArrayList<>();

	private final List<RetryRegistryListener> registryListeners = new ArrayList<>();

	private int contextCacheCapacity = InMemoryRetryContextCache.DEFAULT_CAPACITY;

	private @Nullable Function<String, RetryContextCache> contextCacheFactory;

	RetryRegistryBuilder() {
	}

	/**
	 * Sets the base of every config and instance that names no base, and of every undeclared name.
	 * @param defaults the base of every config and instance that names no base, and of every undeclared
	 * name (default {@link RetryConfig#defaults()})
	 * @return this builder
	 */
	public RetryRegistryBuilder defaults(RetryConfig defaults) {
		this.defaults = Objects.requireNonNull(defaults, "defaults must not be null");
		return this;
	}

	/**
	 * Declares a shared configuration that instances (or other configs) can name as their base.
	 * @param name the config name
	 * @param baseConfig the config it inherits from, or {@code null} for the defaults
	 * @param settings its own settings, applied on a builder of the base
	 * @return this builder
	 */
	public RetryRegistryBuilder config(String name, @Nullable String baseConfig, Consumer<RetryConfigBuilder> settings) {
		this.configs.put(RetryTemplateBuilder.requireName(name), new Definition(baseConfig, settings));
		return this;
	}

	/**
	 * Declares an instance with its own settings on top of a base.
	 * @param name the instance name
	 * @param baseConfig the shared config it inherits from, or {@code null} for the defaults
	 * @param settings its own settings, applied on a builder of the base
	 * @return this builder
	 */
	public RetryRegistryBuilder instance(String name, @Nullable String baseConfig, Consumer<RetryConfigBuilder> settings) {
		this.instances.put(RetryTemplateBuilder.requireName(name), new Definition(baseConfig, settings));
		return this;
	}

	/**
	 * Declares an instance with a complete configuration.
	 * @param name the instance name
	 * @param config its configuration
	 * @return this builder
	 */
	public RetryRegistryBuilder instance(String name, RetryConfig config) {
		Objects.requireNonNull(config, "config must not be null");
		this.instances.put(RetryTemplateBuilder.requireName(name), new Definition(null, builder -> { }, config));
		return this;
	}

	/**
	 * Sets how synchronous calls of every instance wait.
	 * @param sleeper how synchronous calls of every instance wait (default {@link Sleeper#THREAD_SLEEP})
	 * @return this builder
	 */
	public RetryRegistryBuilder sleeper(Sleeper sleeper) {
		this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
		return this;
	}

	/**
	 * Sets the clock of every instance.
	 * @param timeSource the clock of every instance (default {@link TimeSource#SYSTEM})
	 * @return this builder
	 */
	public RetryRegistryBuilder timeSource(TimeSource timeSource) {
		this.timeSource = Objects.requireNonNull(timeSource, "timeSource must not be null");
		return this;
	}

	/**
	 * Runs every instance in virtual time (sleeping, clock and scheduling).
	 * @param virtualTime the virtual clock
	 * @return this builder
	 */
	public RetryRegistryBuilder virtualTime(VirtualTime virtualTime) {
		return sleeper(virtualTime).timeSource(virtualTime).scheduler(virtualTime);
	}

	/**
	 * Sets where async calls and failback tasks of every instance wait.
	 * @param scheduler where async calls and failback tasks of every instance wait (default: the
	 * JVM-wide timing wheel)
	 * @return this builder
	 */
	public RetryRegistryBuilder scheduler(RetryScheduler scheduler) {
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
		return this;
	}

	/**
	 * Adds a listener applied to every instance.
	 * @param listener a listener applied to every instance
	 * @return this builder
	 */
	public RetryRegistryBuilder listener(RetryListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
		return this;
	}

	/**
	 * Adds a customizer applied to every instance's builder, in registration order.
	 * @param customizer a customizer applied to every instance's builder, in registration order
	 * @return this builder
	 */
	public RetryRegistryBuilder customizer(RetryTemplateCustomizer customizer) {
		this.customizers.add(Objects.requireNonNull(customizer, "customizer must not be null"));
		return this;
	}

	/**
	 * Sets the capacity of each instance's in-memory context cache.
	 * @param capacity the capacity of each instance's in-memory context cache (default 4096)
	 * @throws IllegalArgumentException if less than 1
	 * @return this builder
	 */
	public RetryRegistryBuilder contextCacheCapacity(int capacity) {
		this.contextCacheCapacity = RetryConfigBuilder.atLeastOne("context cache capacity", capacity);
		this.contextCacheFactory = null;
		return this;
	}

	/**
	 * Sets the factory that creates the context cache of each instance, by name.
	 * @param factory creates the context cache of each instance, by name (e.g. a shared cluster cache)
	 * @return this builder
	 */
	public RetryRegistryBuilder contextCacheFactory(Function<String, RetryContextCache> factory) {
		this.contextCacheFactory = Objects.requireNonNull(factory, "factory must not be null");
		return this;
	}

	/**
	 * Sets how many recent events are kept per instance.
	 * @param eventBufferSize recent events kept per instance (default 100, at most
	 * {@value RetryTemplateBuilder#MAX_EVENT_BUFFER_SIZE})
	 * @throws IllegalArgumentException if less than 1 or more than {@value RetryTemplateBuilder#MAX_EVENT_BUFFER_SIZE}
	 * @return this builder
	 */
	public RetryRegistryBuilder eventBufferSize(int eventBufferSize) {
		RetryTemplateBuilder.checkEventBufferSize(eventBufferSize);
		this.eventBufferSize = eventBufferSize;
		return this;
	}

	/**
	 * Adds a listener of the registry this builder builds, told of every instance it creates, the declared
	 * ones included, and of every live change ({@link RetryRegistry#addListener}): what a module that
	 * extends every instance (a cluster sharing budgets and breakers) hooks into at build time, so that
	 * it cannot be forgotten afterwards.
	 * @param listener the listener
	 * @return this builder
	 */
	public RetryRegistryBuilder registryListener(RetryRegistryListener listener) {
		this.registryListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
		return this;
	}

	/**
	 * Adds a listener told what happens to the failback tasks of every instance.
	 * @param listener told what happens to the failback tasks of every instance
	 * @return this builder
	 */
	public RetryRegistryBuilder failbackListener(FailbackListener listener) {
		this.failbackListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
		return this;
	}

	/**
	 * Sets how many exhausted failback tasks each instance keeps for inspection.
	 * @param capacity how many exhausted failback tasks each instance keeps for inspection (default 100);
	 * older ones are dropped and counted
	 * @throws IllegalArgumentException if less than 1
	 * @return this builder
	 */
	public RetryRegistryBuilder failbackExhaustedCapacity(int capacity) {
		this.failbackExhaustedCapacity = RetryConfigBuilder.atLeastOne("failbackExhaustedCapacity", capacity);
		return this;
	}

	/**
	 * Resolves every base and builds the registry and its declared instances. The registry keeps a copy
	 * of this builder's settings: changing the builder afterwards does not change the registry.
	 * @return the registry
	 * @throws IllegalArgumentException if a base config is missing, the configs form a cycle, or a
	 * setting is invalid (the message names the config or instance)
	 */
	public RetryRegistry build() {
		Map<String, RetryConfig> resolvedConfigs = new LinkedHashMap<>();
		for (String name : this.configs.keySet()) {
			resolveConfig(name, resolvedConfigs, new LinkedHashSet<>());
		}
		Map<String, RetryConfig> resolvedInstances = new LinkedHashMap<>();
		this.instances.forEach((name, definition) -> resolvedInstances.put(name,
				apply("instance", name, definition, base(definition.baseConfig, "instance '" + name + "'", resolvedConfigs))));
		RetryRegistry registry = new RetryRegistry(this, this.defaults, resolvedConfigs, resolvedInstances);
		this.registryListeners.forEach(registry::addListener);
		return registry;
	}

	/**
	 * The context caches as set now: the factory, or in-memory caches of the capacity on the clock.
	 * @return creates the context cache of an instance, by name
	 */
	Function<String, RetryContextCache> contextCaches() {
		if (this.contextCacheFactory != null) {
			return this.contextCacheFactory;
		}
		int capacity = this.contextCacheCapacity;
		TimeSource clock = this.timeSource;
		return name -> new InMemoryRetryContextCache(capacity, clock);
	}

	private RetryConfig resolveConfig(String name, Map<String, RetryConfig> resolved, Set<String> visiting) {
		RetryConfig done = resolved.get(name);
		if (done != null) {
			return done;
		}
		if (!visiting.add(name)) {
			throw new IllegalArgumentException("Retry configs inherit from each other in a cycle: "
					+ String.join(" -> ", visiting) + " -> " + name);
		}
		// Called for declared names only: build() walks them, and a base is checked to be declared first.
		Definition definition = Objects.requireNonNull(this.configs.get(name), "config '" + name + "' is not declared");
		RetryConfig base = this.defaults;
		if (definition.baseConfig != null) {
			if (!this.configs.containsKey(definition.baseConfig)) {
				throw missingBase(definition.baseConfig, "config '" + name + "'");
			}
			base = resolveConfig(definition.baseConfig, resolved, visiting);
		}
		RetryConfig config = apply("config", name, definition, base);
		resolved.put(name, config);
		visiting.remove(name);
		return config;
	}

	private RetryConfig base(@Nullable String baseConfig, String owner, Map<String, RetryConfig> resolved) {
		if (baseConfig == null) {
			return this.defaults;
		}
		RetryConfig base = resolved.get(baseConfig);
		if (base == null) {
			throw missingBase(baseConfig, owner);
		}
		return base;
	}

	private IllegalArgumentException missingBase(String baseConfig, String owner) {
		return new IllegalArgumentException("Base config '" + baseConfig + "' of " + owner
				+ " is not declared; declared configs: " + this.configs.keySet());
	}

	private static RetryConfig apply(String kind, String name, Definition definition, RetryConfig base) {
		if (definition.complete != null) {
			return definition.complete;
		}
		RetryConfigBuilder builder = RetryConfig.builder(base);
		try {
			definition.settings.accept(builder);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid retry " + kind + " '" + name + "': " + ex.getMessage(), ex);
		}
		return builder.build();
	}

	private record Definition(@Nullable String baseConfig, Consumer<RetryConfigBuilder> settings,
			@Nullable RetryConfig complete) {

		Definition(@Nullable String baseConfig, Consumer<RetryConfigBuilder> settings) {
			this(baseConfig, Objects.requireNonNull(settings, "settings must not be null"), null);
		}

	}

}
