package dev.retrykit.internal;

import java.time.Duration;
import java.util.function.Predicate;

import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryMetrics;
import dev.retrykit.scheduler.TimingWheelScheduler;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.policy.RetryPolicy;
import dev.retrykit.spi.BackoffCursor;
import dev.retrykit.spi.BackoffStrategy;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryContextSnapshot.RecordedFailure;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Everything one instance needs at run time, compiled once from its configuration: classification,
 * attempt limit, policy, backoff, deadline, breaker, budget, counting, events, listeners, and how a
 * synchronous call waits. The decisions of a call are taken by {@link CallLifecycle}, the one place
 * that every engine (synchronous, stateful, async, failback) runs. Immutable and thread-safe.
 */
public final class RetryRuntime {

	/**
	 * A clock reading that was not taken: {@link CallLifecycle#afterAttempt} reads the clock itself
	 * where it needs the time.
	 */
	static final long NOT_READ = Long.MIN_VALUE;

	final String name;

	final RetryConfig config;

	final FailureClassifier classifier;

	final int maxAttempts;

	final long maxDurationNanos;

	private final long attemptTimeoutNanos;

	final @Nullable RetryPolicy policy;

	private final BackoffStrategy backoff;

	private final @Nullable DelayHintExtractor delayHint;

	private final long maxDelayHintNanos;

	private final @Nullable Predicate<Object> retryOnResult;

	/** Failure types whose call skips its recovery; empty for most instances. */
	private final Class<?>[] notRecoverable;

	final Sleeper sleeper;

	final TimeSource timeSource;

	final Listeners listeners;

	final RetryCounters counters;

	final RetryContextCache cache;

	/** The instance's breaker, which every attempt passes, or {@code null}. */
	final @Nullable CircuitBreaker circuit;

	final @Nullable RetryBudget budget;

	final RetryScheduler scheduler;

	/**
	 * The scheduler when it is retrykit's timing wheel, else {@code null}: an async retry is then
	 * scheduled from the timer's next pass, without a clock read on the calling thread.
	 */
	final @Nullable TimingWheelScheduler wheel;

	/**
	 * Whether a successful first attempt needs nothing but counting: no breaker, budget, listener,
	 * deadline or result predicate. The engines take a shorter path for such calls.
	 */
	final boolean plain;

	/**
	 * The breaker of an instance that would be {@link #plain} but for it (no budget, listener, deadline,
	 * result predicate or hedging), else {@code null}: a successful first attempt then needs the breaker's
	 * permit and its success recorded, and counting, and the engines take a short path for it too.
	 */
	final @Nullable CircuitBreaker soleBreaker;

	/** The counters' index in each thread's {@link ContextStack}, read once here rather than per call. */
	final int countersId;

	/** The instance's hedging (delay, latency window, timer), or {@code null} when the instance does not hedge. */
	final @Nullable Hedges hedges;

	/**
	 * The hedging the instance had before a live change switched it off, kept so that switching it on
	 * again keeps the learnt delay; {@code null} while it hedges or never did.
	 */
	private final @Nullable Hedges switchedOffHedges;

	/**
	 * Makes the runtime of one instance from its parts.
	 * @param name the instance name
	 * @param config its configuration
	 * @param sleeper how synchronous calls wait
	 * @param timeSource the clock
	 * @param listeners the listeners, in order
	 * @param cache the stateful-retry context cache
	 * @param circuitBreaker the instance's breaker, or {@code null}
	 * @param budget the instance's (possibly shared) budget, or {@code null}
	 * @param eventCapacity the size of the recent-event buffer
	 * @param scheduler where async calls wait between attempts
	 */
	public RetryRuntime(String name, RetryConfig config, Sleeper sleeper, TimeSource timeSource,
			RetryListener[] listeners, RetryContextCache cache, @Nullable CircuitBreaker circuitBreaker,
			@Nullable RetryBudget budget, int eventCapacity, RetryScheduler scheduler) {
		this(name, config, sleeper, timeSource, null, listeners, new RetryCounters(name, timeSource, eventCapacity),
				cache, circuitBreaker, budget, scheduler, null, false);
	}

	private RetryRuntime(String name, RetryConfig config, Sleeper sleeper, TimeSource timeSource,
			@Nullable Listeners sharedListeners, RetryListener[] listeners, RetryCounters counters,
			RetryContextCache cache, @Nullable CircuitBreaker circuitBreaker, @Nullable RetryBudget budget,
			RetryScheduler scheduler, @Nullable Hedges previousHedges, boolean switchOff) {
		this.name = name;
		this.config = config;
		this.classifier = new FailureClassifier(config);
		this.maxAttempts = config.getMaxAttempts();
		Duration maxDuration = config.getMaxDuration();
		this.maxDurationNanos = (maxDuration != null) ? saturatedNanos(maxDuration) : 0;
		Duration attemptTimeout = config.getAttemptTimeout();
		this.attemptTimeoutNanos = (attemptTimeout != null) ? saturatedNanos(attemptTimeout) : 0;
		this.policy = config.getPolicy();
		this.backoff = config.getBackoff();
		this.delayHint = config.getDelayHint();
		this.maxDelayHintNanos = saturatedNanos(config.getMaxDelayHint());
		this.retryOnResult = config.getRetryOnResult();
		this.notRecoverable = config.getNotRecoverable().toArray(new Class<?>[0]);
		this.sleeper = sleeper;
		this.timeSource = timeSource;
		this.counters = counters;
		this.listeners = (sharedListeners != null) ? sharedListeners : new Listeners(name, listeners.clone(), counters);
		this.cache = cache;
		this.circuit = circuitBreaker;
		this.budget = budget;
		this.scheduler = scheduler;
		this.wheel = (scheduler instanceof TimingWheelScheduler timingWheel) ? timingWheel : null;
		boolean unwatched = budget == null && this.listeners.isEmpty() && this.maxDurationNanos == 0
				&& this.retryOnResult == null && !config.isHedging();
		this.plain = unwatched && circuitBreaker == null;
		this.soleBreaker = unwatched ? circuitBreaker : null;
		this.countersId = counters.id;
		this.hedges = config.isHedging() ? new Hedges(this, java.util.Objects.requireNonNull(config.getHedging()),
				previousHedges) : null;
		this.switchedOffHedges = (this.hedges == null) ? previousHedges : null;
		if (switchOff && previousHedges != null) {
			// A live switch-off reaches the calls in flight: they start no further copy by the delay.
			previousHedges.switchOff();
		}
	}

	/**
	 * The same instance with another configuration: everything but the configuration is shared
	 * (counters and events, listeners, time, cache, breaker, budget, scheduler).
	 * @param config the configuration of the variant
	 * @return the variant's runtime
	 */
	public RetryRuntime variant(RetryConfig config) {
		return new RetryRuntime(this.name, config, this.sleeper, this.timeSource, this.listeners, new RetryListener[0],
				this.counters, this.cache, this.circuit, this.budget, this.scheduler, carriedHedges(), false);
	}

	/**
	 * The same instance with another configuration and other listeners, told in place of the instance's:
	 * everything else is shared, as for {@link #variant(RetryConfig)}.
	 * @param config the configuration of the variant
	 * @param listeners the variant's listeners, in order; none makes its calls as plain as the rest allows
	 * @return the variant's runtime
	 */
	public RetryRuntime variant(RetryConfig config, RetryListener[] listeners) {
		return new RetryRuntime(this.name, config, this.sleeper, this.timeSource, null, listeners, this.counters,
				this.cache, this.circuit, this.budget, this.scheduler, carriedHedges(), false);
	}

	/**
	 * The same instance after a live change: counters and events, listeners, time, cache and scheduler
	 * carry over; the configuration, breaker and budget are the ones given.
	 * @param config the new configuration
	 * @param circuitBreaker the breaker to use from now on, or {@code null}
	 * @param budget the budget to use from now on, or {@code null}
	 * @return the new runtime
	 */
	public RetryRuntime reconfigured(RetryConfig config, @Nullable CircuitBreaker circuitBreaker, @Nullable RetryBudget budget) {
		return new RetryRuntime(this.name, config, this.sleeper, this.timeSource, this.listeners, new RetryListener[0],
				this.counters, this.cache, circuitBreaker, budget, this.scheduler, carriedHedges(), !config.isHedging());
	}

	/** The hedging a variant or a live change carries on from: the current one, or the one switched off. */
	private @Nullable Hedges carriedHedges() {
		return (this.hedges != null) ? this.hedges : this.switchedOffHedges;
	}

	/**
	 * {@return the current delay between copies of a hedged call (adaptive or fixed), or -1 when the
	 * instance does not hedge}
	 */
	public long hedgingDelayNanos() {
		Hedges hedges = this.hedges;
		return (hedges != null) ? hedges.delayNanos() : -1;
	}

	/** {@return the instance's time source} */
	public TimeSource timeSource() {
		return this.timeSource;
	}

	/** {@return the instance name} */
	public String name() {
		return this.name;
	}

	/** {@return the instance's counters} */
	public RetryCounters counters() {
		return this.counters;
	}

	/** {@return the instance's counters, as its template hands them to users} */
	public RetryMetrics metrics() {
		return this.counters;
	}

	/** {@return the instance's context cache} */
	public RetryContextCache cache() {
		return this.cache;
	}

	/** {@return the instance's configuration} */
	public RetryConfig config() {
		return this.config;
	}

	/** {@return the instance's breaker, or {@code null}} */
	public @Nullable CircuitBreaker circuitBreaker() {
		return this.circuit;
	}

	/** {@return the instance's budget, or {@code null}} */
	public @Nullable RetryBudget budget() {
		return this.budget;
	}

	/** {@return the attempt timeout in nanoseconds, or 0 for none} */
	long attemptTimeoutNanos() {
		return this.attemptTimeoutNanos;
	}

	/**
	 * The time limit of the next async attempt: the attempt timeout, shortened to what remains before
	 * the call's deadline (max-duration, or the caller's {@link dev.retrykit.Deadline}), so that the
	 * deadline bounds the whole call.
	 * @param context the call's context
	 * @return the limit in nanoseconds, or 0 for none
	 */
	long attemptTimeoutNanos(MutableRetryContext context) {
		long timeout = this.attemptTimeoutNanos;
		long deadline = context.deadlineNanos;
		if (deadline != CallDeadlines.NONE) {
			long remaining = Math.max(1, deadline - this.timeSource.nanoTime());
			timeout = (timeout == 0) ? remaining : Math.min(timeout, remaining);
		}
		return timeout;
	}

	/**
	 * Starts a call: sets its deadline (the earlier of max-duration from now and {@code deadline}), and
	 * asks the listeners.
	 * @param context the call's context
	 * @param deadline the caller's deadline, or {@code null}
	 * @return whether the listeners let the call run
	 */
	boolean open(MutableRetryContext context, dev.retrykit.@Nullable Deadline deadline) {
		if (this.maxDurationNanos != 0 || deadline != null) {
			CallDeadlines.open(this, context, (this.maxDurationNanos != 0) ? NOT_READ : CallDeadlines.NONE, deadline);
		}
		// Otherwise the context holds none already: it is new, or pooled (released to none after each call).
		return this.listeners.isEmpty() || this.listeners.open(context);
	}

	/**
	 * Whether a call's attempts are used up: {@code max-attempts} of them failed ({@code -1}, unlimited,
	 * never). The one place that reads {@code max-attempts} for it, for stateless and stateful calls alike
	 * (a hedged call's copies count as its copies started, which its race keeps).
	 * @param failedAttempts the attempts that failed so far (the context's retry count)
	 * @return whether no attempt may follow
	 */
	boolean attemptsUsedUp(int failedAttempts) {
		return this.maxAttempts > 0 && failedAttempts >= this.maxAttempts;
	}

	/**
	 * Whether an attempt's result is accepted: always, unless {@code retry-on-result} matches it.
	 * @param result the result
	 * @return whether the result is accepted
	 */
	public boolean isAccepted(@Nullable Object result) {
		return this.retryOnResult == null || !this.retryOnResult.test(result);
	}

	/**
	 * Whether an attempt after a wait would start at or past the call's deadline (max-duration, or the
	 * caller's {@link dev.retrykit.Deadline}).
	 * @param context the call's context
	 * @param delayNanos the wait
	 * @return {@code true} if the call has a deadline and the wait reaches it
	 */
	boolean isPastDeadline(MutableRetryContext context, long delayNanos) {
		return context.deadlineNanos != CallDeadlines.NONE
				&& isPastDeadline(context, delayNanos, this.timeSource.nanoTime());
	}

	boolean isPastDeadline(MutableRetryContext context, long delayNanos, long nowNanos) {
		return context.deadlineNanos != CallDeadlines.NONE && delayNanos >= context.deadlineNanos - nowNanos;
	}

	/** The backoff's delay before the next attempt, replaced by the failure's delay hint if it has one. */
	long nextDelay(MutableRetryContext context, @Nullable Throwable failure) {
		BackoffCursor cursor = context.cursor;
		if (cursor == null) {
			cursor = this.backoff.start();
			// A strategy that is its own cursor (every BackoffPolicy) keeps nothing per call: not storing
			// it spares a write barrier per call, as the pooled context is long-lived.
			if (cursor != this.backoff) {
				context.cursor = cursor;
			}
		}
		long delay = Math.max(0, cursor.nextDelayNanos(context.getRetryCount(), context.previousDelayNanos));
		context.previousDelayNanos = delay;
		if (this.delayHint != null && failure != null) {
			Duration hint = FailureClassifier.delayHint(this.delayHint, failure);
			if (hint != null && !hint.isNegative()) {
				delay = Math.min(saturatedNanos(hint), this.maxDelayHintNanos);
			}
		}
		return delay;
	}

	/**
	 * A hedged call's wait before the copy a failure asks for: none (the copies replace the backoff),
	 * unless the failure's delay hint says how long (e.g. {@code Retry-After}).
	 */
	long hedgeDelay(@Nullable Throwable failure) {
		if (this.delayHint != null && failure != null) {
			Duration hint = FailureClassifier.delayHint(this.delayHint, failure);
			if (hint != null && !hint.isNegative()) {
				return Math.min(saturatedNanos(hint), this.maxDelayHintNanos);
			}
		}
		return 0;
	}

	/**
	 * Whether a call ending with {@code failure} skips its recovery.
	 * @param failure what the call ends with, or {@code null}
	 * @return whether {@code failure} is of a {@code notRecoverable} type
	 */
	boolean isNotRecoverable(@Nullable Throwable failure) {
		if (failure == null || this.notRecoverable.length == 0) {
			return false;
		}
		for (Class<?> type : this.notRecoverable) {
			if (RecordedFailure.isInstance(type, failure)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Tells the listeners that a call ended.
	 * @param context the call's context
	 * @param failure what it ends with, or {@code null}
	 */
	public void close(RetryContext context, @Nullable Throwable failure) {
		if (!this.listeners.isEmpty()) {
			this.listeners.close(context, failure);
		}
	}

	static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

}
