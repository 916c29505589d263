package dev.retrykit.spring.boot.actuate.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryEvent;
import dev.retrykit.RetryMetrics;
import dev.retrykit.RetryTemplate;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.budget.RetryBudgetConfig;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.cluster.RetryCluster;
import dev.retrykit.failback.FailbackExecutor;
import dev.retrykit.failback.FailbackTask;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextCacheEntry;
import dev.retrykit.spi.RetryContextSnapshot;
import dev.retrykit.spi.TimeSource;
import dev.retrykit.text.Durations;
import org.jspecify.annotations.Nullable;

/**
 * Turns a template into a {@link RetryInstanceDescriptor}: reads its counters, circuit breaker, budget,
 * context cache and failback executor, masks what may be sensitive unless values are shown, and bounds
 * the lists.
 * Thread-safe; every read is a snapshot that concurrent calls may move on from.
 */
final class RetriesDescriber {

	/** The most cache entries, failback tasks and events a detailed response lists. */
	static final int MAX_ENTRIES = 100;

	/** The scope of a budget or circuit shared by the replicas. */
	static final String CLUSTER_SCOPE = "cluster";

	/** The source of a read that the cluster engine answered. */
	static final String CLUSTER_SOURCE = "cluster";

	/** The source of a read of shared state that the engine did not answer: this replica's local state. */
	static final String LOCAL_SOURCE = "local";

	/** What a masked value shows. */
	static final String MASK = "******";

	private final TimeSource timeSource;

	private final @Nullable RetryCluster cluster;

	RetriesDescriber(TimeSource timeSource, @Nullable RetryCluster cluster) {
		this.timeSource = timeSource;
		this.cluster = cluster;
	}

	/**
	 * @param template the instance
	 * @param failback the instance's failback executor, or {@code null} if none was created
	 * @param detailed whether to add the cache entries, the failback tasks and the recent events
	 * @param showValues whether cache keys, failback task keys and exception messages are shown unmasked
	 * @return the description
	 */
	RetryInstanceDescriptor describe(RetryTemplate template, @Nullable FailbackExecutor failback, boolean detailed,
			boolean showValues) {
		RetryMetrics metrics = template.getMetrics();
		RetryInstanceDescriptor.Calls calls = new RetryInstanceDescriptor.Calls(metrics.getSuccessfulCallsWithoutRetry(),
				metrics.getSuccessfulCallsWithRetry(), metrics.getFailedCallsWithoutRetry(), metrics.getFailedCallsWithRetry());
		RetryInstanceDescriptor.Rejections rejections = new RetryInstanceDescriptor.Rejections(
				metrics.getCircuitOpenRejections(), metrics.getBudgetExhaustedRejections(),
				metrics.getDeadlineRejections(), metrics.getDownstreamExhaustedRejections());
		List<RetryInstanceDescriptor.Event> events = detailed ? events(metrics, showValues) : null;
		Long eventsOmitted = (events != null) ? Math.max(0, metrics.getRecordedEvents() - events.size()) : null;
		return new RetryInstanceDescriptor(RetryConfigDescriptor.of(template.getConfig()), calls, metrics.getAttempts(),
				metrics.getRecoveries(), rejections, circuit(template.getCircuitBreaker()), budget(template.getBudget()),
				contextCache(template.getContextCache(), template.getConfig().isStateful(), detailed, showValues), failback(failback, detailed, showValues),
				events, eventsOmitted, template.getReconfiguredAt().map(Object::toString).orElse(null), hedging(template));
	}

	private static RetryInstanceDescriptor.@Nullable Hedging hedging(RetryTemplate template) {
		dev.retrykit.hedging.HedgingConfig config = template.getConfig().getHedging();
		java.time.Duration delay = template.getHedgingDelay();
		if (config == null || delay == null || !template.getConfig().isHedging()) {
			return null;
		}
		RetryMetrics metrics = template.getMetrics();
		return new RetryInstanceDescriptor.Hedging(Durations.approximate(delay), config.isAdaptive(),
				config.isAdaptive() ? config.getQuantile() : null, metrics.getHedgesStarted(), metrics.getHedgesWon());
	}

	private RetryInstanceDescriptor.@Nullable Circuit circuit(@Nullable CircuitBreaker breaker) {
		if (breaker == null) {
			return null;
		}
		RetryInstanceDescriptor.Circuit circuit = CircuitSnapshot.of(breaker).toDescriptor();
		RetryCluster shared = this.cluster;
		return (shared != null && shared.isShared(breaker)) ? circuit.withScope(CLUSTER_SCOPE, source(shared.isReachable()))
				: circuit;
	}

	/** Where a read of shared state came from: the engine's answers, or this replica's local state. */
	private static String source(boolean fromEngine) {
		return fromEngine ? CLUSTER_SOURCE : LOCAL_SOURCE;
	}

	private RetryInstanceDescriptor.@Nullable Budget budget(@Nullable RetryBudget budget) {
		if (budget == null) {
			return null;
		}
		RetryCluster shared = this.cluster;
		boolean clustered = shared != null && shared.isShared(budget);
		String scope = clustered ? CLUSTER_SCOPE : null;
		String source = clustered ? source(shared.isReachable()) : null;
		if (budget.getKind() == RetryBudgetConfig.Kind.TOKEN_BUCKET) {
			return new RetryInstanceDescriptor.Budget(budget.getTokens(), budget.getMaxTokens(), scope, source);
		}
		RetryBudgetConfig config = budget.getConfig();
		return new RetryInstanceDescriptor.Budget(RetryInstanceDescriptor.Budget.RATIO, null, null, config.getRatio(),
				config.getMinPerSecond(), Durations.format(config.getWindow()), budget.getAvailable(), scope,
				source);
	}

	/**
	 * Every instance has a cache, but most never hold anything: the cache is shown for an instance
	 * configured as stateful, and for any other once it holds a context or has evicted one (it was
	 * used for stateful retry through the API).
	 */
	private RetryInstanceDescriptor.@Nullable ContextCache contextCache(RetryContextCache cache, boolean stateful,
			boolean detailed, boolean showValues) {
		if (!stateful && !cache.hasBeenUsed()) {
			return null;
		}
		RetryCluster shared = this.cluster;
		if (shared == null || !shared.isShared(cache)) {
			return contextCache(cache, detailed, showValues, null);
		}
		RetryCluster.SharedRead<RetryInstanceDescriptor.ContextCache> read = shared
			.read(() -> contextCache(cache, detailed, showValues, null));
		RetryInstanceDescriptor.ContextCache view = read.value();
		return new RetryInstanceDescriptor.ContextCache(view.size(), view.capacity(), view.evictions(), view.entries(),
				view.entriesOmitted(), source(read.fromEngine()));
	}

	private RetryInstanceDescriptor.ContextCache contextCache(RetryContextCache cache, boolean detailed,
			boolean showValues, @Nullable String source) {
		int size = cache.size();
		long evictions = cache.evictions();
		if (!detailed) {
			return new RetryInstanceDescriptor.ContextCache(size, cache.capacity(), evictions, null, null, source);
		}
		long now = this.timeSource.currentTimeMillis();
		List<RetryInstanceDescriptor.ContextCacheEntry> entries = new ArrayList<>();
		for (RetryContextCacheEntry entry : cache.entries(MAX_ENTRIES)) {
			RetryContext context = entry.context();
			Throwable last = context.getLastThrowable();
			entries.add(new RetryInstanceDescriptor.ContextCacheEntry(mask(String.valueOf(entry.key()), showValues),
					context.getRetryCount(), errorType(last),
					Instant.ofEpochMilli(entry.createdAtMillis()).toString(),
					Durations.approximate(Duration.ofMillis(Math.max(0, now - entry.createdAtMillis())))));
		}
		return new RetryInstanceDescriptor.ContextCache(size, cache.capacity(), evictions, entries,
				Math.max(0, size - entries.size()), source);
	}

	/**
	 * The detailed view lists the pending tasks first (oldest first: they are still live), then, in the
	 * room left, the most recent exhausted tasks kept. The lists are read before the exhausted count,
	 * so that the count covers every exhausted task listed; the pending count is the size of the list
	 * read, so that the two agree.
	 */
	private static RetryInstanceDescriptor.@Nullable Failback failback(@Nullable FailbackExecutor executor,
			boolean detailed, boolean showValues) {
		if (executor == null) {
			return null;
		}
		if (!detailed) {
			return new RetryInstanceDescriptor.Failback(executor.pendingCount(), executor.exhaustedCount(),
					executor.rejectedCount(), executor.capacity(), null, null);
		}
		List<FailbackTask> pending = executor.pendingTasks();
		List<FailbackTask> exhausted = executor.exhaustedTasks();
		long exhaustedCount = Math.max(executor.exhaustedCount(), exhausted.size());
		List<FailbackTask> shownPending = pending.subList(0, Math.min(pending.size(), MAX_ENTRIES));
		int room = MAX_ENTRIES - shownPending.size();
		List<FailbackTask> shownExhausted = exhausted.subList(Math.max(0, exhausted.size() - room), exhausted.size());
		List<RetryInstanceDescriptor.FailbackTaskEntry> tasks = new ArrayList<>(shownPending.size() + shownExhausted.size());
		shownPending.forEach((task) -> tasks.add(failbackTask("PENDING", task, showValues)));
		shownExhausted.forEach((task) -> tasks.add(failbackTask("EXHAUSTED", task, showValues)));
		return new RetryInstanceDescriptor.Failback(pending.size(), exhaustedCount, executor.rejectedCount(),
				executor.capacity(), tasks,
				Math.max(0, pending.size() + exhaustedCount - tasks.size()));
	}

	private static RetryInstanceDescriptor.FailbackTaskEntry failbackTask(String state, FailbackTask task,
			boolean showValues) {
		String message = task.lastErrorMessage();
		Instant next = task.nextAttemptAt();
		return new RetryInstanceDescriptor.FailbackTaskEntry(state, mask(String.valueOf(task.key()), showValues),
				task.attempts(), task.lastErrorType(), (message != null) ? mask(message, showValues) : null,
				task.submittedAt().toString(), (next != null) ? next.toString() : null);
	}

	private static List<RetryInstanceDescriptor.Event> events(RetryMetrics metrics, boolean showValues) {
		List<RetryEvent> recent = metrics.getRecentEvents();
		List<RetryEvent> shown = recent.subList(Math.max(0, recent.size() - MAX_ENTRIES), recent.size());
		List<RetryInstanceDescriptor.Event> events = new ArrayList<>(shown.size());
		for (RetryEvent event : shown) {
			String message = event.exceptionMessage();
			events.add(new RetryInstanceDescriptor.Event(event.type().name(), event.attempt(), event.exceptionType(),
					(message != null) ? mask(message, showValues) : null, Durations.approximate(event.delay()),
					event.timestamp().toString()));
		}
		return events;
	}

	/** A context continued from another replica knows its last failure by type only. */
	private static @Nullable String errorType(@Nullable Throwable last) {
		if (last instanceof RetryContextSnapshot.RecordedFailure recorded) {
			return recorded.getType();
		}
		return (last != null) ? last.getClass().getName() : null;
	}

	private static String mask(String value, boolean showValues) {
		return showValues ? value : MASK;
	}

}
