package dev.retrykit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.internal.RetryRuntime;
import dev.retrykit.policy.RetryPolicy;
import dev.retrykit.spi.BackoffStrategy;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link RetryTemplate}: a name, a {@link RetryConfig} (set whole with {@link #config} or
 * through the shortcuts below), and the run-time collaborators (sleeper, clock, listeners, context
 * cache, circuit breaker, budget). Not thread-safe.
 */
public final class RetryTemplateBuilder {

	/** The default name of a template built without one. */
	public static final String DEFAULT_NAME = "default";

	/** The default number of recent events kept per instance. */
	public static final int DEFAULT_EVENT_BUFFER_SIZE = 100;

	/** The largest event buffer an instance may keep (16,777,216 events, about 600 MB). */
	public static final int MAX_EVENT_BUFFER_SIZE = 1 << 24;

	private String name = DEFAULT_NAME;

	private RetryConfigBuilder config = RetryConfig.builder();

	private Sleeper sleeper = Sleeper.THREAD_SLEEP;

	private TimeSource timeSource = TimeSource.SYSTEM;

	private final List<RetryListener> listeners = new ArrayList<>();

	private @Nullable RetryContextCache contextCache;

	private @Nullable CircuitBreaker circuitBreaker;

	private @Nullable RetryBudget budget;

	private int eventBufferSize = DEFAULT_EVENT_BUFFER_SIZE;

	private @Nullable RetryScheduler scheduler;

	RetryTemplateBuilder() {
	}

	/**
	 * Sets the instance name.
	 * @param name the instance name (default {@value #DEFAULT_NAME})
	 * @throws IllegalArgumentException if blank
	 * @return this builder
	 */
	public RetryTemplateBuilder name(String name) {
		this.name = requireName(name);
		return this;
	}

	/**
	 * {@return {@code name}, checked to be a name of an instance or of a registry's config: not blank}
	 * @param name the name
	 * @throws IllegalArgumentException if blank
	 */
	static String requireName(String name) {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isBlank()) {
			throw new IllegalArgumentException("Invalid name (''): must not be blank");
		}
		return name;
	}

	/**
	 * Replaces the whole configuration; later shortcuts change it further.
	 * @param config the configuration (default {@link RetryConfig#defaults()})
	 * @return this builder
	 */
	public RetryTemplateBuilder config(RetryConfig config) {
		this.config = RetryConfig.builder(Objects.requireNonNull(config, "config must not be null"));
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#maxAttempts(int)} of this template's configuration.
	 * @param maxAttempts see {@link RetryConfigBuilder#maxAttempts(int)}
	 * @return this builder
	 */
	public RetryTemplateBuilder maxAttempts(int maxAttempts) {
		this.config.maxAttempts(maxAttempts);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#maxDuration(Duration)} of this template's configuration.
	 * @param maxDuration see {@link RetryConfigBuilder#maxDuration(Duration)}
	 * @return this builder
	 */
	public RetryTemplateBuilder maxDuration(@Nullable Duration maxDuration) {
		this.config.maxDuration(maxDuration);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#hedging(dev.retrykit.hedging.HedgingConfig)} of this template's configuration.
	 * @param hedging see {@link RetryConfigBuilder#hedging(dev.retrykit.hedging.HedgingConfig)}
	 * @return this builder
	 */
	public RetryTemplateBuilder hedging(dev.retrykit.hedging.@Nullable HedgingConfig hedging) {
		this.config.hedging(hedging);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#backoff(BackoffStrategy)} of this template's configuration.
	 * @param backoff see {@link RetryConfigBuilder#backoff(BackoffStrategy)}
	 * @return this builder
	 */
	public RetryTemplateBuilder backoff(BackoffStrategy backoff) {
		this.config.backoff(backoff);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#retryOn(Class[])} of this template's configuration.
	 * @param types see {@link RetryConfigBuilder#retryOn(Class[])}
	 * @return this builder
	 */
	@SafeVarargs
	public final RetryTemplateBuilder retryOn(Class<? extends Throwable>... types) {
		this.config.retryOn(types);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#ignore(Class[])} of this template's configuration.
	 * @param types see {@link RetryConfigBuilder#ignore(Class[])}
	 * @return this builder
	 */
	@SafeVarargs
	public final RetryTemplateBuilder ignore(Class<? extends Throwable>... types) {
		this.config.ignore(types);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#notRecoverable(Class[])} of this template's configuration.
	 * @param types see {@link RetryConfigBuilder#notRecoverable(Class[])}
	 * @return this builder
	 */
	@SafeVarargs
	public final RetryTemplateBuilder notRecoverable(Class<? extends Throwable>... types) {
		this.config.notRecoverable(types);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#retryOnResult(Predicate)} of this template's configuration.
	 * @param retryOnResult see {@link RetryConfigBuilder#retryOnResult(Predicate)}
	 * @return this builder
	 */
	public RetryTemplateBuilder retryOnResult(@Nullable Predicate<Object> retryOnResult) {
		this.config.retryOnResult(retryOnResult);
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#policy(RetryPolicy)} of this template's configuration.
	 * @param policy see {@link RetryConfigBuilder#policy(RetryPolicy)}
	 * @return this builder
	 */
	public RetryTemplateBuilder policy(@Nullable RetryPolicy policy) {
		this.config.policy(policy);
		return this;
	}

	/**
	 * Sets how synchronous calls wait.
	 * @param sleeper how synchronous calls wait (default {@link Sleeper#THREAD_SLEEP})
	 * @return this builder
	 */
	public RetryTemplateBuilder sleeper(Sleeper sleeper) {
		this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
		return this;
	}

	/**
	 * Sets the clock for deadlines, breakers and events.
	 * @param timeSource the clock for deadlines, breakers and events (default {@link TimeSource#SYSTEM})
	 * @return this builder
	 */
	public RetryTemplateBuilder timeSource(TimeSource timeSource) {
		this.timeSource = Objects.requireNonNull(timeSource, "timeSource must not be null");
		return this;
	}

	/**
	 * Uses one virtual clock for sleeping, time and async scheduling, so tests run without waiting.
	 * @param virtualTime the virtual clock
	 * @return this builder
	 */
	public RetryTemplateBuilder virtualTime(VirtualTime virtualTime) {
		return sleeper(virtualTime).timeSource(virtualTime).scheduler(virtualTime);
	}

	/**
	 * Sets where async calls wait between attempts and time their attempts, and where the instance's
	 * failback tasks wait.
	 * @param scheduler where async calls wait between attempts and time their attempts, and where the
	 * instance's failback tasks wait (default: one timing wheel shared by the JVM, see
	 * {@code dev.retrykit.scheduler.TimingWheelScheduler})
	 * @return this builder
	 */
	public RetryTemplateBuilder scheduler(RetryScheduler scheduler) {
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
		return this;
	}

	/**
	 * Sets {@link RetryConfigBuilder#attemptTimeout(Duration)} of this template's configuration.
	 * @param attemptTimeout see {@link RetryConfigBuilder#attemptTimeout(Duration)}
	 * @return this builder
	 */
	public RetryTemplateBuilder attemptTimeout(@Nullable Duration attemptTimeout) {
		this.config.attemptTimeout(attemptTimeout);
		return this;
	}

	/**
	 * Adds a listener, called after those added before.
	 * @param listener the listener
	 * @return this builder
	 */
	public RetryTemplateBuilder listener(RetryListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
		return this;
	}

	/**
	 * Adds listeners, in order.
	 * @param listeners the listeners
	 * @return this builder
	 */
	public RetryTemplateBuilder listeners(Collection<? extends RetryListener> listeners) {
		listeners.forEach(this::listener);
		return this;
	}

	/**
	 * Sets the stateful-retry cache.
	 * @param contextCache the stateful-retry cache (default: an {@link InMemoryRetryContextCache} of 4096)
	 * @return this builder
	 */
	public RetryTemplateBuilder contextCache(RetryContextCache contextCache) {
		this.contextCache = Objects.requireNonNull(contextCache, "contextCache must not be null");
		return this;
	}

	/**
	 * Uses an existing breaker (e.g. one shared with other code) instead of creating one from the
	 * configuration's {@link RetryConfig#getCircuitBreaker()}.
	 * @param circuitBreaker the breaker
	 * @return this builder
	 */
	public RetryTemplateBuilder circuitBreaker(CircuitBreaker circuitBreaker) {
		this.circuitBreaker = Objects.requireNonNull(circuitBreaker, "circuitBreaker must not be null");
		return this;
	}

	/**
	 * Uses an existing (shared) budget instead of creating one from the configuration's
	 * {@link RetryConfig#getBudget()}.
	 * @param budget the budget
	 * @return this builder
	 */
	public RetryTemplateBuilder budget(RetryBudget budget) {
		this.budget = Objects.requireNonNull(budget, "budget must not be null");
		return this;
	}

	/**
	 * Sets how many recent events to keep.
	 * @param eventBufferSize how many recent events to keep (default {@value #DEFAULT_EVENT_BUFFER_SIZE})
	 * @throws IllegalArgumentException if less than 1 or more than {@value #MAX_EVENT_BUFFER_SIZE}
	 * @return this builder
	 */
	public RetryTemplateBuilder eventBufferSize(int eventBufferSize) {
		checkEventBufferSize(eventBufferSize);
		this.eventBufferSize = eventBufferSize;
		return this;
	}

	static void checkEventBufferSize(int eventBufferSize) {
		if (eventBufferSize < 1 || eventBufferSize > MAX_EVENT_BUFFER_SIZE) {
			throw new IllegalArgumentException("Invalid eventBufferSize (" + eventBufferSize + "): must be between 1 and "
					+ MAX_EVENT_BUFFER_SIZE);
		}
	}

	/** @return the configuration {@link #build()} would use, as the customizers left it */
	RetryConfig buildConfig() {
		return this.config.build();
	}

	/**
	 * Builds the template.
	 * @return the template
	 */
	public RetryTemplate build() {
		RetryConfig built = this.config.build();
		CircuitBreaker breaker = this.circuitBreaker;
		if (breaker == null && built.getCircuitBreaker() != null) {
			breaker = CircuitBreaker.create(this.name, built.getCircuitBreaker(), this.timeSource);
		}
		RetryBudget retryBudget = this.budget;
		if (retryBudget == null && built.getBudget() != null) {
			String budgetName = (built.getBudgetName() != null) ? built.getBudgetName() : this.name;
			retryBudget = RetryBudget.create(budgetName, built.getBudget(), this.timeSource);
		}
		RetryContextCache cache = (this.contextCache != null) ? this.contextCache
				: new InMemoryRetryContextCache(InMemoryRetryContextCache.DEFAULT_CAPACITY, this.timeSource);
		return new RetryTemplate(new RetryRuntime(this.name, built, this.sleeper, this.timeSource,
				this.listeners.toArray(new RetryListener[0]), cache, breaker, retryBudget, this.eventBufferSize,
				(this.scheduler != null) ? this.scheduler : DefaultScheduler.get()));
	}

}
