package dev.retrykit.spring.boot.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryRegistryListener;
import dev.retrykit.RetryTemplate;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.failback.FailbackExecutor;
import dev.retrykit.spi.RetryContextCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the meters of every instance of a {@link RetryRegistry}: the declared ones and those created
 * later, when a name is first used at run time (through a registry listener).
 *
 * <p>Meters, each tagged with the instance {@code name}:
 * <ul>
 * <li>{@code retry.calls} (function counter, tag {@code kind} = {@code successful_without_retry},
 * {@code successful_with_retry}, {@code failed_without_retry}, {@code failed_with_retry})</li>
 * <li>{@code retry.attempts}, {@code retry.recoveries} (function counters)</li>
 * <li>{@code retry.rejections} (function counter, tag {@code reason} = {@code circuit_open},
 * {@code budget_exhausted}, {@code deadline}, {@code downstream_exhausted})</li>
 * <li>{@code retry.circuit.state} (gauge per {@code state} = {@code closed}, {@code open},
 * {@code half_open}: 1 for the current state, 0 for the others; only for instances with a circuit
 * breaker)</li>
 * <li>{@code retry.budget.tokens} (gauge; only for instances with a token-bucket retry budget)</li>
 * <li>{@code retry.budget.available} (gauge: the retries the budget would allow now; for instances with a retry
 * budget of either kind)</li>
 * <li>{@code retry.context.cache.size} (gauge)</li>
 * <li>{@code retry.context.cache.evictions} (function counter: contexts evicted because the cache was
 * full)</li>
 * <li>{@code retry.failback.pending} (gauge: the tasks waiting for a background retry; 0 while the
 * instance has no failback executor)</li>
 * <li>{@code retry.failback.exhausted} (function counter: failback tasks that used up their attempts;
 * 0 while the instance has no failback executor)</li>
 * <li>{@code retry.failback.rejected} (function counter: failback submits refused because the executor
 * held its capacity of pending tasks; 0 while the instance has no failback executor)</li>
 * <li>{@code retry.hedges} (function counter, tag {@code result} = {@code won}, {@code lost},
 * {@code cancelled}, {@code refused}: copies of hedged calls after the first; only for instances that hedge,
 * registered when a live change turns hedging on and removed when one turns it off)</li>
 * <li>{@code retry.hedging.delay} (time gauge: the delay after which a hedged call starts its next copy now,
 * the adaptive estimate or the fixed delay; only for instances that hedge)</li>
 * </ul>
 *
 * <p>The circuit, budget and hedging-delay gauges read the instance's current breaker, budget and hedging
 * through its template, so they follow a live change ({@code RetryRegistry.replace}, which may give the
 * instance a new budget, breaker or hedging policy); a change that adds or removes one adds or removes
 * its gauges.
 *
 * <p>{@code retry.failback.pending}, {@code retry.failback.exhausted} and {@code retry.failback.rejected} are registered for every instance, not only for those that have a
 * failback executor: an executor is created lazily, on the application's first
 * {@code RetryRegistry.failback(name)} call, possibly long after startup, and the registry tells no
 * listener when that happens. The gauge therefore looks the executor up each time it is read, with
 * {@code RetryRegistry.findFailback(name)}, which never creates one, and reads 0 while there is none.
 * A gauge that is always there (and 0 for instances that never use failback) also keeps dashboards
 * and alerts simple; the cost is one gauge per instance.
 *
 * <p>Every meter reads the core's own counters when it is published, so a retried call pays nothing
 * for metrics. Micrometer holds the state object of a function counter or gauge weakly; the objects
 * passed here (an instance's template, and its metrics and cache, which the template holds) are held
 * strongly by the registry for its whole life, and the state object of the failback meters is the
 * registry itself, which the application holds.
 *
 * <p>Thread-safe. Binding the same registry twice is harmless: Micrometer returns the existing meters.
 */
public final class RetryMetricsBinder implements MeterBinder {

	/** The tag that names the instance. */
	public static final String NAME_TAG = "name";

	private final RetryRegistry retryRegistry;

	/**
	 * @param retryRegistry the registry whose instances are measured
	 */
	public RetryMetricsBinder(RetryRegistry retryRegistry) {
		this.retryRegistry = Objects.requireNonNull(retryRegistry, "retryRegistry must not be null");
	}

	/**
	 * Binds the meters of the existing instances now and of every instance created later.
	 * @param meterRegistry the meter registry
	 */
	@Override
	public void bindTo(MeterRegistry meterRegistry) {
		Objects.requireNonNull(meterRegistry, "meterRegistry must not be null");
		this.retryRegistry.addListener(new RetryRegistryListener() {

			@Override
			public void onInstanceAdded(RetryTemplate template) {
				bindInstance(meterRegistry, template);
			}

			@Override
			public void onInstanceReplaced(RetryTemplate template, RetryConfig previous) {
				// The gauges already read the template's current breaker, budget and hedging; a change may add or remove one.
				Tags tags = Tags.of(NAME_TAG, template.getName());
				bindCircuitAndBudget(meterRegistry, template, tags);
				bindHedging(meterRegistry, template, tags);
			}

		});
	}

	private void bindInstance(MeterRegistry meterRegistry, RetryTemplate template) {
		Tags tags = Tags.of(NAME_TAG, template.getName());
		RetryMetrics metrics = template.getMetrics();
		calls(meterRegistry, tags, metrics, "successful_without_retry", RetryMetrics::getSuccessfulCallsWithoutRetry);
		calls(meterRegistry, tags, metrics, "successful_with_retry", RetryMetrics::getSuccessfulCallsWithRetry);
		calls(meterRegistry, tags, metrics, "failed_without_retry", RetryMetrics::getFailedCallsWithoutRetry);
		calls(meterRegistry, tags, metrics, "failed_with_retry", RetryMetrics::getFailedCallsWithRetry);
		FunctionCounter.builder("retry.attempts", metrics, RetryMetrics::getAttempts).tags(tags)
			.description("Attempts started, first attempts included").register(meterRegistry);
		FunctionCounter.builder("retry.recoveries", metrics, RetryMetrics::getRecoveries).tags(tags)
			.description("Calls whose result came from a recovery callback").register(meterRegistry);
		rejections(meterRegistry, tags, metrics, "circuit_open", RetryMetrics::getCircuitOpenRejections);
		rejections(meterRegistry, tags, metrics, "budget_exhausted", RetryMetrics::getBudgetExhaustedRejections);
		rejections(meterRegistry, tags, metrics, "deadline", RetryMetrics::getDeadlineRejections);
		rejections(meterRegistry, tags, metrics, "downstream_exhausted", RetryMetrics::getDownstreamExhaustedRejections);
		bindCircuitAndBudget(meterRegistry, template, tags);
		RetryContextCache cache = template.getContextCache();
		Gauge.builder("retry.context.cache.size", cache, RetryContextCache::size).tags(tags)
			.description("Stateful-retry contexts kept between calls").register(meterRegistry);
		FunctionCounter.builder("retry.context.cache.evictions", cache, RetryContextCache::evictions).tags(tags)
			.description("Stateful-retry contexts evicted because the cache was full").register(meterRegistry);
		String name = template.getName();
		Gauge.builder("retry.failback.pending", this.retryRegistry, (registry) -> pendingFailbacks(registry, name))
			.tags(tags).description("Failback tasks waiting for a background retry").register(meterRegistry);
		FunctionCounter.builder("retry.failback.exhausted", this.retryRegistry, (registry) -> exhaustedFailbacks(registry, name))
			.tags(tags).description("Failback tasks that used up their attempts").register(meterRegistry);
		FunctionCounter.builder("retry.failback.rejected", this.retryRegistry, (registry) -> rejectedFailbacks(registry, name))
			.tags(tags).description("Failback submits refused because the executor's capacity of pending tasks was reached")
			.register(meterRegistry);
		bindHedging(meterRegistry, template, tags);
	}

	/**
	 * The hedging meters, for an instance that hedges: {@code retry.hedges} by result, and the delay gauge, which
	 * reads the template's delay each time, so an adaptive delay is published as it moves. A live change that
	 * turns hedging on registers them; one that turns it off removes them (the core keeps the counts, so they
	 * carry on if it is turned on again).
	 */
	private static void bindHedging(MeterRegistry meterRegistry, RetryTemplate template, Tags tags) {
		if (template.getHedgingDelay() == null) {
			remove(meterRegistry, "retry.hedges", tags);
			remove(meterRegistry, "retry.hedging.delay", tags);
		}
		else if (!bound(meterRegistry, "retry.hedging.delay", tags)) {
			RetryMetrics metrics = template.getMetrics();
			hedges(meterRegistry, tags, metrics, "won", RetryMetrics::getHedgesWon);
			hedges(meterRegistry, tags, metrics, "lost", RetryMetrics::getHedgesLost);
			hedges(meterRegistry, tags, metrics, "cancelled", RetryMetrics::getHedgesCancelled);
			hedges(meterRegistry, tags, metrics, "refused", RetryMetrics::getHedgesRefused);
			TimeGauge.builder("retry.hedging.delay", template, TimeUnit.NANOSECONDS, RetryMetricsBinder::hedgingDelayNanos)
				.tags(tags).description("The delay after which a hedged call starts its next copy (adaptive or fixed)")
				.register(meterRegistry);
		}
	}

	private static double hedgingDelayNanos(RetryTemplate template) {
		Duration delay = template.getHedgingDelay();
		return (delay != null) ? delay.toNanos() : Double.NaN;
	}

	private static void hedges(MeterRegistry meterRegistry, Tags tags, RetryMetrics metrics, String result,
			ToDoubleFunction<RetryMetrics> count) {
		FunctionCounter.builder("retry.hedges", metrics, count).tags(tags).tag("result", result)
			.description("Copies of hedged calls after the first, by how they ended (refused: not sent)")
			.register(meterRegistry);
	}

	/**
	 * The circuit and budget gauges read the template's breaker and budget each time, not the objects it had
	 * when bound: a live change ({@code RetryRegistry.replace}) may give the instance new ones. A change that
	 * adds one registers its gauges; one that removes it removes them.
	 */
	private static void bindCircuitAndBudget(MeterRegistry meterRegistry, RetryTemplate template, Tags tags) {
		// Registering again what is bound would only make Micrometer warn: a replacement binds what is new.
		if (template.getCircuitBreaker() != null && !bound(meterRegistry, "retry.circuit.state", tags)) {
			for (CircuitState state : CircuitState.values()) {
				Gauge.builder("retry.circuit.state", template, (instance) -> circuitState(instance, state))
					.tags(tags).tag("state", stateTag(state))
					.description("1 for the current state of the circuit breaker, 0 for the others")
					.register(meterRegistry);
			}
		}
		else if (template.getCircuitBreaker() == null) {
			remove(meterRegistry, "retry.circuit.state", tags);
		}
		RetryBudget budget = template.getBudget();
		boolean tokenBucket = budget != null && budget.getKind() == RetryBudgetConfig.Kind.TOKEN_BUCKET;
		if (tokenBucket && !bound(meterRegistry, "retry.budget.tokens", tags)) {
			Gauge.builder("retry.budget.tokens", template, RetryMetricsBinder::budgetTokens).tags(tags)
				.description("Tokens left in the retry budget; retries stop at half of the maximum")
				.register(meterRegistry);
		}
		else if (!tokenBucket) {
			remove(meterRegistry, "retry.budget.tokens", tags);
		}
		if (budget != null && !bound(meterRegistry, "retry.budget.available", tags)) {
			Gauge.builder("retry.budget.available", template, RetryMetricsBinder::budgetAvailable).tags(tags)
				.description("Retries the retry budget would allow now (a token bucket or a ratio budget)")
				.register(meterRegistry);
		}
		else if (budget == null) {
			remove(meterRegistry, "retry.budget.available", tags);
		}
	}

	private static double circuitState(RetryTemplate template, CircuitState state) {
		CircuitBreaker breaker = template.getCircuitBreaker();
		return (breaker == null) ? Double.NaN : (breaker.getState() == state) ? 1 : 0;
	}

	private static double budgetTokens(RetryTemplate template) {
		RetryBudget budget = template.getBudget();
		return (budget != null && budget.getKind() == RetryBudgetConfig.Kind.TOKEN_BUCKET) ? budget.getTokens() : Double.NaN;
	}

	private static double budgetAvailable(RetryTemplate template) {
		RetryBudget budget = template.getBudget();
		return (budget != null) ? budget.getAvailable() : Double.NaN;
	}

	private static boolean bound(MeterRegistry meterRegistry, String meter, Tags tags) {
		return !meterRegistry.find(meter).tags(tags).meters().isEmpty();
	}

	private static void remove(MeterRegistry meterRegistry, String meter, Tags tags) {
		meterRegistry.find(meter).tags(tags).meters().forEach(meterRegistry::remove);
	}

	private static long exhaustedFailbacks(RetryRegistry registry, String name) {
		return registry.findFailback(name).map(FailbackExecutor::exhaustedCount).orElse(0L);
	}

	private static long rejectedFailbacks(RetryRegistry registry, String name) {
		return registry.findFailback(name).map(FailbackExecutor::rejectedCount).orElse(0L);
	}

	private static int pendingFailbacks(RetryRegistry registry, String name) {
		return registry.findFailback(name).map(FailbackExecutor::pendingCount).orElse(0);
	}

	/** Tag values are lower case with underscores, like every other tag value of these meters. */
	static String stateTag(CircuitState state) {
		return state.name().toLowerCase(Locale.ROOT);
	}

	private static void calls(MeterRegistry meterRegistry, Tags tags, RetryMetrics metrics, String kind,
			ToDoubleFunction<RetryMetrics> count) {
		FunctionCounter.builder("retry.calls", metrics, count).tags(tags).tag("kind", kind)
			.description("Retried calls by outcome").register(meterRegistry);
	}

	private static void rejections(MeterRegistry meterRegistry, Tags tags, RetryMetrics metrics, String reason,
			ToDoubleFunction<RetryMetrics> count) {
		FunctionCounter.builder("retry.rejections", metrics, count).tags(tags).tag("reason", reason)
			.description("Attempts refused by an open circuit or retries refused by the retry budget")
			.register(meterRegistry);
	}

}
