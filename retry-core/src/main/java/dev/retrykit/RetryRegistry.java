package dev.retrykit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerConfig;
import dev.retrykit.failback.FailbackExecutor;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.internal.FailbackEngine;
import dev.retrykit.internal.RetryRuntime;
import org.jspecify.annotations.Nullable;

/**
 * Named retry instances: the declared ones, built from their (inherited) configurations, and any
 * other name, created on first use from the defaults. Retry budgets are shared by name across
 * instances. Thread-safe.
 *
 * <pre>{@code
 * RetryRegistry registry = RetryRegistry.builder()
 *     .defaults(RetryConfig.builder().maxAttempts(3).build())
 *     .config("slow-backend", null, config -> config.backoff(BackoffPolicy.fixed(Duration.ofMillis(500))))
 *     .instance("inventory", "slow-backend", config -> config.maxAttempts(4))
 *     .build();
 * registry.template("inventory").execute(context -> client.fetch());
 * }</pre>
 */
public final class RetryRegistry {

	private final RetryConfig defaults;

	private final Map<String, RetryConfig> configs;

	/** The declared instances' configurations; {@link #replace} changes and adds entries. */
	private final ConcurrentMap<String, RetryConfig> declared;

	private final ConcurrentMap<String, RetryTemplate> templates = new ConcurrentHashMap<>();

	/**
	 * Held while an instance is created or a change is prepared and swapped in, so that a change of several
	 * instances is derived from one state and no first use of a name slips between its checks and its swap.
	 * Calls never take it: they read the templates' runtimes.
	 */
	private final Object changes = new Object();

	private final RegistryListeners listeners = new RegistryListeners();

	private final ConcurrentMap<String, FailbackExecutor> failbacks = new ConcurrentHashMap<>();

	/** Builds the instances and keeps the budgets they share by name. */
	private final InstanceAssembly assembly;

	RetryRegistry(RetryRegistryBuilder builder, RetryConfig defaults, Map<String, RetryConfig> configs,
			Map<String, RetryConfig> declared) {
		this.assembly = new InstanceAssembly(builder);
		this.defaults = defaults;
		this.configs = Map.copyOf(configs);
		this.declared = new ConcurrentHashMap<>(declared);
		declared.keySet().forEach(this::template);
	}

	/** {@return a builder with the default configuration and no declared instance} */
	public static RetryRegistryBuilder builder() {
		return new RetryRegistryBuilder();
	}

	/** {@return a registry whose every instance uses {@link RetryConfig#defaults()}} */
	public static RetryRegistry ofDefaults() {
		return builder().build();
	}

	/**
	 * The instance of that name: the declared one, or a new one with the defaults on first use.
	 * @param name the instance name
	 * @return the template
	 */
	public RetryTemplate template(String name) {
		Objects.requireNonNull(name, "name must not be null");
		RetryTemplate existing = this.templates.get(name);
		if (existing != null) {
			return existing;
		}
		RetryTemplate created;
		synchronized (this.changes) {
			existing = this.templates.get(name);
			if (existing != null) {
				return existing;
			}
			Map<String, RetryBudget> newBudgets = new HashMap<>();
			created = this.assembly.create(name, this.declared.getOrDefault(name, this.defaults), newBudgets);
			this.assembly.addBudgets(newBudgets);
			this.templates.put(name, created);
		}
		this.listeners.announce(created);
		return created;
	}

	/**
	 * {@return the instance if it was declared or already used}
	 * @param name the instance name
	 */
	public Optional<RetryTemplate> find(String name) {
		return Optional.ofNullable(this.templates.get(name));
	}

	/** {@return the names of every instance created so far, sorted} */
	public Set<String> names() {
		return new TreeSet<>(this.templates.keySet());
	}

	/** {@return every instance created so far} */
	public Collection<RetryTemplate> templates() {
		return List.copyOf(this.templates.values());
	}

	/** {@return the names of the declared instances, also those added by {@link #replace}; a read-only view} */
	public Set<String> declaredNames() {
		return Collections.unmodifiableSet(this.declared.keySet());
	}

	/**
	 * Swaps an instance's configuration atomically (live reconfiguration). A call in flight finishes on
	 * the configuration it started with; the next call uses {@code config}. What carries over: the
	 * counters and recent events, listeners, context cache (stateful contexts keep their counts and meet
	 * the new limits on their next attempt), scheduler, and:
	 * <ul>
	 * <li>the circuit breaker, when both configurations have one: same state and window counts, its
	 * settings swapped (a changed trip expression applies from its next evaluation). A breaker added by
	 * the change starts closed; a breaker removed by it is dropped with its state.</li>
	 * <li>the budget, when it keeps its name: same tokens; if its settings change, a budget of the new
	 * settings takes the tokens over (capped at the new {@code maxTokens}) and the name: other instances
	 * sharing the budget keep the old one until they are replaced too, with the same settings, which
	 * makes them join the new one (replace every instance that shares a budget, as the Spring starter
	 * does). A budget added by the change starts full (or is the shared one of that name); a removed one
	 * stays with any other instance that shares it.</li>
	 * </ul>
	 * Every {@link RetryTemplate} handed out for {@code name} follows the change, and so do the variants
	 * made from it with {@link RetryTemplate#variant(java.util.function.UnaryOperator)}; variants made
	 * with {@link RetryTemplate#variant(RetryConfig)} keep their fixed configuration. The customizers run
	 * again on the new configuration (what they set besides it, such as listeners or the scheduler, stays
	 * as at creation). Listeners hear {@link RetryRegistryListener#onInstanceReplaced}; a name not used
	 * yet is created with {@code config} and announced with {@link RetryRegistryListener#onInstanceAdded}.
	 * A failback executor already created keeps the configuration it was created with.
	 * @param name the instance name
	 * @param config the new configuration
	 * @return the instance, on its new configuration
	 * @throws RuntimeException what a customizer or a following variant's derivation throws; nothing is
	 * changed then
	 * @see #replaceAll(Map)
	 */
	public RetryTemplate replace(String name, RetryConfig config) {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(config, "config must not be null");
		RetryTemplate replaced = replaceAll(Map.of(name, config)).get(name);
		return Objects.requireNonNull(replaced, "replaceAll returns every instance it is given");
	}

	/**
	 * Swaps the configurations of several instances as one change, all or nothing: every instance is
	 * derived and validated first (customizers, following variants, new instances and their budgets),
	 * and only when all of them succeed are they swapped in, each as {@link #replace} swaps one. If any
	 * fails, none is changed, no instance is created and no listener is told. Instances that share a
	 * budget whose settings change join one new budget when they are in the same change. Listeners are
	 * told after the swap, in the order of {@code configs}. A call that starts while the swap runs may
	 * see some instances on their new configuration and others still on their old one.
	 * @param configs the new configuration of each instance, by name
	 * @return the instances, on their new configurations, in the order of {@code configs}
	 * @throws RuntimeException what a customizer or a following variant's derivation throws, or an
	 * {@link IllegalStateException} when a new instance would share a budget with different settings;
	 * nothing is changed then
	 */
	public Map<String, RetryTemplate> replaceAll(Map<String, RetryConfig> configs) {
		Objects.requireNonNull(configs, "configs must not be null");
		configs.forEach((name, config) -> {
			Objects.requireNonNull(name, "name must not be null");
			Objects.requireNonNull(config, "config must not be null");
		});
		List<PreparedChange> prepared = new ArrayList<>(configs.size());
		synchronized (this.changes) {
			Map<String, RetryBudget> newBudgets = new HashMap<>();
			configs.forEach((name, config) -> {
				RetryTemplate current = this.templates.get(name);
				prepared.add((current != null) ? prepareChange(current, config, newBudgets)
						: new PreparedChange(this.assembly.create(name, config, newBudgets), config, null, null));
			});
			// Every instance is derived and validated: only now does anything change.
			this.assembly.addBudgets(newBudgets);
			for (PreparedChange change : prepared) {
				this.declared.put(change.template().getName(), change.config());
				Runnable swap = change.swap();
				if (swap != null) {
					swap.run();
				}
				else {
					this.templates.put(change.template().getName(), change.template());
				}
			}
		}
		Map<String, RetryTemplate> replaced = new LinkedHashMap<>();
		for (PreparedChange change : prepared) {
			RetryConfig previous = change.previous();
			if (previous != null) {
				this.listeners.replaced(change.template(), previous);
			}
			else {
				this.listeners.announce(change.template());
			}
			replaced.put(change.template().getName(), change.template());
		}
		return replaced;
	}

	/**
	 * Derives an instance's new runtime, and its following variants', without changing anything yet.
	 * @param newBudgets budgets this change creates so far, by name; a budget it creates is added
	 */
	private PreparedChange prepareChange(RetryTemplate template, RetryConfig config,
			Map<String, RetryBudget> newBudgets) {
		String name = template.getName();
		RetryConfig built = this.assembly.customized(name, config);
		RetryRuntime old = template.runtime();
		CircuitBreaker oldBreaker = template.getCircuitBreaker();
		CircuitBreakerConfig breakerConfig = built.getCircuitBreaker();
		CircuitBreaker breaker = (breakerConfig == null) ? null
				: (oldBreaker != null) ? oldBreaker : CircuitBreaker.create(name, breakerConfig, old.timeSource());
		RetryBudget budget = this.assembly.budgetAfterChange(name, built, newBudgets);
		RetryTemplate.Reconfiguration change = template.prepare(old.reconfigured(built, breaker, budget),
				Instant.ofEpochMilli(this.assembly.settings().timeSource().currentTimeMillis()));
		// The kept breaker takes its new settings at the swap, not before.
		CircuitBreakerConfig retune = (breaker != null && breaker == oldBreaker
				&& !breaker.getConfig().equals(breakerConfig)) ? breakerConfig : null;
		Runnable swap = () -> {
			if (retune != null && oldBreaker != null) {
				oldBreaker.reconfigure(retune);
			}
			change.apply();
		};
		return new PreparedChange(template, config, template.getConfig(), swap);
	}

	/**
	 * One instance of a change, derived and validated, waiting to be swapped in.
	 * @param template the instance: an existing one, or one created for the change
	 * @param config the configuration the change declares for it
	 * @param previous its configuration before the change, {@code null} when it is created
	 * @param swap swaps the new runtimes into an existing instance, {@code null} when it is created
	 */
	private record PreparedChange(RetryTemplate template, RetryConfig config, @Nullable RetryConfig previous,
			@Nullable Runnable swap) {
	}

	/** {@return the configuration of any name that is not declared} */
	public RetryConfig defaults() {
		return this.defaults;
	}

	/**
	 * {@return the shared configuration, resolved against its base}
	 * @param name a shared configuration's name
	 */
	public Optional<RetryConfig> config(String name) {
		return Optional.ofNullable(this.configs.get(name));
	}

	/**
	 * {@return the shared budget of that name, if an instance uses it}
	 * @param name a budget name
	 */
	public Optional<RetryBudget> budget(String name) {
		return this.assembly.budget(name);
	}

	/**
	 * The failback executor of an instance (created on first use), which retries failed
	 * fire-and-forget tasks in the background with that instance's policy, on that instance's scheduler
	 * (the one its async calls use, as a customizer may have set it).
	 * @param name the instance name
	 * @return its failback executor
	 */
	public FailbackExecutor failback(String name) {
		RetryTemplate template = template(name);
		InstanceAssembly.Settings settings = this.assembly.settings();
		return this.failbacks.computeIfAbsent(name, key -> new FailbackEngine(template.runtime(),
				settings.failbackExhaustedCapacity(), settings.failbackListeners()));
	}

	/**
	 * {@return its failback executor, if one was created}
	 * @param name the instance name
	 */
	public Optional<FailbackExecutor> findFailback(String name) {
		return Optional.ofNullable(this.failbacks.get(name));
	}

	/**
	 * Shuts down every failback executor and returns what was still pending, by instance.
	 * @return the pending tasks of each instance that had any
	 */
	public Map<String, List<FailbackTask>> shutdownFailbacks() {
		Map<String, List<FailbackTask>> left = new java.util.TreeMap<>();
		this.failbacks.forEach((name, executor) -> {
			List<FailbackTask> tasks = executor.shutdown();
			if (!tasks.isEmpty()) {
				left.put(name, tasks);
			}
		});
		return left;
	}

	/**
	 * Registers a listener, told of every instance created from now on; it is also told at once of
	 * the instances that exist already.
	 * @param listener the listener
	 */
	public void addListener(RetryRegistryListener listener) {
		Objects.requireNonNull(listener, "listener must not be null");
		this.listeners.add(listener);
	}

	@Override
	public String toString() {
		return "RetryRegistry[instances=" + names() + ", configs=" + new TreeSet<>(this.configs.keySet()) + "]";
	}

}
