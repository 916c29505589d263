package dev.retrykit.spring.boot.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.retrykit.RetryContext;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitBreakerMetrics;
import dev.retrykit.circuit.CircuitState;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextCacheEntry;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Turns a template into a {@link RetryInstanceDescriptor}: reads its counters, circuit breaker, budget
 * and context cache, masks what may be sensitive unless values are shown, and bounds the lists.
 * Thread-safe; every read is a snapshot that concurrent calls may move on from.
 */
final class RetriesDescriber {

	/** The most cache entries and events a detailed response lists. */
	static final int MAX_ENTRIES = 100;

	/** What a masked value shows. */
	static final String MASK = "******";

	private final TimeSource timeSource;

	RetriesDescriber(TimeSource timeSource) {
		this.timeSource = timeSource;
	}

	/**
	 * @param template the instance
	 * @param detailed whether to add the cache entries and the recent events
	 * @param showValues whether cache keys and exception messages are shown unmasked
	 * @return the description
	 */
	RetryInstanceDescriptor describe(RetryTemplate template, boolean detailed, boolean showValues) {
		RetryMetrics metrics = template.getMetrics();
		RetryInstanceDescriptor.Calls calls = new RetryInstanceDescriptor.Calls(metrics.getSuccessfulCallsWithoutRetry(),
				metrics.getSuccessfulCallsWithRetry(), metrics.getFailedCallsWithoutRetry(), metrics.getFailedCallsWithRetry());
		RetryInstanceDescriptor.Rejections rejections = new RetryInstanceDescriptor.Rejections(
				metrics.getCircuitOpenRejections(), metrics.getBudgetExhaustedRejections());
		List<RetryInstanceDescriptor.Event> events = detailed ? events(metrics, showValues) : null;
		Long eventsOmitted = (events != null) ? Math.max(0, metrics.getRecordedEvents() - events.size()) : null;
		return new RetryInstanceDescriptor(RetryConfigDescriptor.of(template.getConfig()), calls, metrics.getAttempts(),
				metrics.getRecoveries(), rejections, circuit(template.getCircuitBreaker()), budget(template.getBudget()),
				contextCache(template.getContextCache(), detailed, showValues), events, eventsOmitted);
	}

	private static RetryInstanceDescriptor.@Nullable Circuit circuit(@Nullable CircuitBreaker breaker) {
		if (breaker == null) {
			return null;
		}
		// One snapshot, so that the state and the counts agree (it also applies a due timeout).
		CircuitBreakerMetrics snapshot = breaker.getMetrics();
		boolean forced = breaker.isForcedOpen();
		String remaining = (snapshot.state() == CircuitState.OPEN && !forced)
				? ReadableDurations.formatRounded(breaker.getRemainingOpenNanos()) : null;
		return new RetryInstanceDescriptor.Circuit(snapshot.state().name(), forced, remaining,
				snapshot.consecutiveFailures(), snapshot.totalFailures(), snapshot.totalSuccesses(), snapshot.failureRate());
	}

	private static RetryInstanceDescriptor.@Nullable Budget budget(@Nullable RetryBudget budget) {
		return (budget != null) ? new RetryInstanceDescriptor.Budget(budget.getTokens(), budget.getMaxTokens()) : null;
	}

	/**
	 * Every instance has a cache, but most never hold anything: the cache is shown once it holds a
	 * context or has evicted one, that is once the instance has been used for stateful retry.
	 */
	private RetryInstanceDescriptor.@Nullable ContextCache contextCache(RetryContextCache cache, boolean detailed,
			boolean showValues) {
		int size = cache.size();
		long evictions = cache.evictions();
		if (size == 0 && evictions == 0) {
			return null;
		}
		if (!detailed) {
			return new RetryInstanceDescriptor.ContextCache(size, cache.capacity(), evictions, null, null);
		}
		long now = this.timeSource.currentTimeMillis();
		List<RetryInstanceDescriptor.ContextCacheEntry> entries = new ArrayList<>();
		for (RetryContextCacheEntry entry : cache.entries(MAX_ENTRIES)) {
			RetryContext context = entry.context();
			Throwable last = context.getLastThrowable();
			entries.add(new RetryInstanceDescriptor.ContextCacheEntry(mask(String.valueOf(entry.key()), showValues),
					context.getRetryCount(), (last != null) ? last.getClass().getName() : null,
					Instant.ofEpochMilli(entry.createdAtMillis()).toString(),
					ReadableDurations.format(Duration.ofMillis(Math.max(0, now - entry.createdAtMillis())))));
		}
		return new RetryInstanceDescriptor.ContextCache(size, cache.capacity(), evictions, entries,
				Math.max(0, size - entries.size()));
	}

	private static List<RetryInstanceDescriptor.Event> events(RetryMetrics metrics, boolean showValues) {
		List<RetryEvent> recent = metrics.getRecentEvents();
		List<RetryEvent> shown = recent.subList(Math.max(0, recent.size() - MAX_ENTRIES), recent.size());
		List<RetryInstanceDescriptor.Event> events = new ArrayList<>(shown.size());
		for (RetryEvent event : shown) {
			String message = event.exceptionMessage();
			events.add(new RetryInstanceDescriptor.Event(event.type().name(), event.attempt(), event.exceptionType(),
					(message != null) ? mask(message, showValues) : null, ReadableDurations.formatRounded(event.delay().toNanos()),
					event.timestamp().toString()));
		}
		return events;
	}

	private static String mask(String value, boolean showValues) {
		return showValues ? value : MASK;
	}

}
