package dev.retrykit.internal;

import java.time.Duration;
import java.util.function.Predicate;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryContext;
import dev.retrykit.RetryEventType;
import dev.retrykit.RetryInterruptedException;
import dev.retrykit.RetryListener;
import dev.retrykit.async.TimingWheelScheduler;
import dev.retrykit.budget.RetryBudget;
import dev.retrykit.circuit.CircuitBreaker;
import dev.retrykit.circuit.CircuitOpenException;
import dev.retrykit.policy.RetryPolicy;
import dev.retrykit.spi.BackoffStrategy;
import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.RetryContextCache;
import dev.retrykit.spi.RetryScheduler;
import dev.retrykit.spi.Sleeper;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Everything one instance needs at run time, compiled once from its configuration: the decision after
 * a failure (classification, attempt limit, policy, backoff, deadline, budget), counting, events and
 * listener calls. The synchronous, stateful and async executions all decide through
 * {@link #onFailure}. Immutable and thread-safe.
 */
public final class RetryRuntime {

	/** {@link #onFailure} result: the failure is not retryable. */
	public static final long STOP_NOT_RETRYABLE = -1;

	/** {@link #onFailure} result: attempts exhausted (max-attempts, policy, or exhausted-only). */
	public static final long STOP_EXHAUSTED = -2;

	/** {@link #onFailure} result: the next attempt would start past max-duration. */
	public static final long STOP_DEADLINE = -3;

	/** {@link #onFailure} result: the retry budget refused the retry. */
	public static final long STOP_BUDGET = -4;

	/**
	 * {@link #onFailure} result: the circuit breaker is open for longer than the delay, so the next
	 * attempt would be rejected: the call ends now, without waiting.
	 */
	public static final long STOP_CIRCUIT_OPEN = -5;

	/**
	 * A clock reading that was not taken: {@link #onFailure(MutableRetryContext, Throwable, Object, long)}
	 * reads the clock itself where it needs the time.
	 */
	static final long NOT_READ = Long.MIN_VALUE;

	final String name;

	final RetryConfig config;

	private final FailureClassifier classifier;

	private final int maxAttempts;

	private final long maxDurationNanos;

	private final long attemptTimeoutNanos;

	private final @Nullable RetryPolicy policy;

	private final BackoffStrategy backoff;

	private final @Nullable DelayHintExtractor delayHint;

	private final long maxDelayHintNanos;

	private final @Nullable Predicate<Object> retryOnResult;

	final Sleeper sleeper;

	final TimeSource timeSource;

	final Listeners listeners;

	final RetryCounters counters;

	final RetryContextCache cache;

	final @Nullable CircuitBreaker circuitBreaker;

	final @Nullable RetryBudget budget;

	final RetryScheduler scheduler;

	/**
	 * The scheduler when it is a {@link TimingWheelScheduler} on this instance's time source, else
	 * {@code null}: an async retry then reads the clock once, for both its event and its deadline.
	 */
	final @Nullable TimingWheelScheduler wheel;

	/**
	 * Whether a successful first attempt needs nothing but counting: no breaker, budget, listener,
	 * deadline or result predicate. The engines take a shorter path for such calls.
	 */
	final boolean plain;

	/** The counters' index in each thread's {@link ContextStack}, read once here rather than per call. */
	final int countersId;

	/**
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
				cache, circuitBreaker, budget, scheduler);
	}

	private RetryRuntime(String name, RetryConfig config, Sleeper sleeper, TimeSource timeSource,
			@Nullable Listeners sharedListeners, RetryListener[] listeners, RetryCounters counters,
			RetryContextCache cache, @Nullable CircuitBreaker circuitBreaker, @Nullable RetryBudget budget,
			RetryScheduler scheduler) {
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
		this.sleeper = sleeper;
		this.timeSource = timeSource;
		this.counters = counters;
		this.listeners = (sharedListeners != null) ? sharedListeners : new Listeners(name, listeners.clone(), counters);
		this.cache = cache;
		this.circuitBreaker = circuitBreaker;
		this.budget = budget;
		this.scheduler = scheduler;
		this.wheel = (scheduler instanceof TimingWheelScheduler timingWheel && timingWheel.timeSource() == timeSource)
				? timingWheel : null;
		this.plain = circuitBreaker == null && budget == null && this.listeners.isEmpty() && this.maxDurationNanos == 0
				&& this.retryOnResult == null;
		this.countersId = counters.id;
	}

	/**
	 * The same instance with another configuration: everything but the configuration is shared
	 * (counters and events, listeners, time, cache, breaker, budget, scheduler).
	 * @param config the configuration of the variant
	 * @return the variant's runtime
	 */
	public RetryRuntime variant(RetryConfig config) {
		return new RetryRuntime(this.name, config, this.sleeper, this.timeSource, this.listeners, new RetryListener[0],
				this.counters, this.cache, this.circuitBreaker, this.budget, this.scheduler);
	}

	/** @return the instance name */
	public String name() {
		return this.name;
	}

	/** @return the instance's counters */
	public RetryCounters counters() {
		return this.counters;
	}

	/** @return the instance's context cache */
	public RetryContextCache cache() {
		return this.cache;
	}

	/** @return the instance's configuration */
	public RetryConfig config() {
		return this.config;
	}

	/** @return the instance's breaker, or {@code null} */
	public @Nullable CircuitBreaker circuitBreaker() {
		return this.circuitBreaker;
	}

	/** @return the instance's budget, or {@code null} */
	public @Nullable RetryBudget budget() {
		return this.budget;
	}

	/**
	 * The time limit of the next async attempt: the attempt timeout, shortened to what remains before
	 * the deadline so that max-duration bounds the whole call.
	 * @param context the call's context
	 * @return the limit in nanoseconds, or 0 for none
	 */
	long attemptTimeoutNanos(MutableRetryContext context) {
		long timeout = this.attemptTimeoutNanos;
		if (this.maxDurationNanos != 0) {
			long remaining = Math.max(1, context.startNanos + this.maxDurationNanos - this.timeSource.nanoTime());
			timeout = (timeout == 0) ? remaining : Math.min(timeout, remaining);
		}
		return timeout;
	}

	/**
	 * Gives back the breaker permit of an attempt whose outcome no longer matters (the call was cancelled).
	 * @param context the call's context
	 */
	void releaseAttempt(MutableRetryContext context) {
		if (this.circuitBreaker != null) {
			this.circuitBreaker.releasePermission(context.permit);
		}
	}

	/**
	 * Starts a call: stamps its start when there is a deadline, and asks the listeners.
	 * @param context the call's context
	 * @return whether the listeners let the call run
	 */
	public boolean open(MutableRetryContext context) {
		if (this.maxDurationNanos != 0) {
			context.startNanos = this.timeSource.nanoTime();
		}
		return this.listeners.isEmpty() || this.listeners.open(context);
	}

	/**
	 * Asks the breaker (if any) to let the next attempt through and counts it.
	 * @param context the call's context, which keeps the breaker's permit for the attempt
	 * @param block the calling thread's counters
	 * @return whether the attempt may run
	 */
	public boolean acquireAttempt(MutableRetryContext context, ThreadCounters block) {
		if (this.circuitBreaker != null) {
			long permit = this.circuitBreaker.acquirePermission();
			if (permit == CircuitBreaker.NO_PERMISSION) {
				return false;
			}
			context.permit = permit;
		}
		block.attempt();
		return true;
	}

	/**
	 * Whether an attempt's result is accepted: always, unless {@code retry-on-result} matches it (then
	 * the caller continues as with {@link #onFailure}).
	 * @param result the result
	 * @return whether the result is accepted
	 */
	public boolean isAccepted(@Nullable Object result) {
		return this.retryOnResult == null || !this.retryOnResult.test(result);
	}

	/**
	 * Records a success: the breaker and budget, the outcome, the event and the listeners.
	 * @param context the call's context
	 * @param block the calling thread's counters
	 * @param result the result
	 */
	public void onSuccess(MutableRetryContext context, ThreadCounters block, @Nullable Object result) {
		if (this.circuitBreaker != null) {
			this.circuitBreaker.onSuccess(context.permit);
		}
		if (this.budget != null) {
			this.budget.onSuccess();
		}
		int retries = context.getRetryCount();
		if (retries == 0) {
			block.successWithoutRetry();
		}
		else {
			block.outcome(true, true);
			this.counters.event(RetryEventType.SUCCESS_AFTER_RETRY, retries + 1, null, 0);
		}
		if (!this.listeners.isEmpty()) {
			this.listeners.onSuccess(context, result);
			this.listeners.close(context, null);
		}
	}

	/**
	 * Records a failed attempt and decides what follows.
	 * @param context the call's context; the failure is counted into it
	 * @param failure the unwrapped exception, or {@code null} for a rejected result
	 * @param result the rejected result when {@code failure} is {@code null}
	 * @return the delay in nanoseconds before the next attempt (zero or more), or one of the
	 * negative {@code STOP_*} reasons
	 */
	public long onFailure(MutableRetryContext context, @Nullable Throwable failure, @Nullable Object result) {
		return onFailure(context, failure, result, NOT_READ);
	}

	/**
	 * {@link #onFailure(MutableRetryContext, Throwable, Object)} at a time the caller has read from the
	 * time source: it stamps the retry's event and checks the deadline, instead of a clock read each.
	 * @param context the call's context; the failure is counted into it
	 * @param failure the unwrapped exception, or {@code null} for a rejected result
	 * @param result the rejected result when {@code failure} is {@code null}
	 * @param nowNanos {@code timeSource.nanoTime()} read for this decision, or {@link #NOT_READ} to read it
	 * here, once, for both the deadline and the event
	 * @return the delay before the next attempt, or a negative {@code STOP_*} reason
	 */
	long onFailure(MutableRetryContext context, @Nullable Throwable failure, @Nullable Object result, long nowNanos) {
		boolean retryable = failure == null || this.classifier.isRetryable(failure);
		if (this.circuitBreaker != null) {
			if (retryable) {
				this.circuitBreaker.onFailure(context.permit);
			}
			else {
				this.circuitBreaker.releasePermission(context.permit);
			}
		}
		if (this.budget != null && retryable) {
			this.budget.onFailure();
		}
		context.registerFailure(failure, result);
		if (!this.listeners.isEmpty()) {
			this.listeners.onError(context, failure);
		}
		if (!retryable) {
			return STOP_NOT_RETRYABLE;
		}
		int retries = context.getRetryCount();
		if (context.isExhaustedOnly() || (this.maxAttempts > 0 && retries >= this.maxAttempts)
				|| (this.policy != null && !this.policy.canRetry(context))) {
			return STOP_EXHAUSTED;
		}
		long delay = nextDelay(context, failure);
		long now = (nowNanos != NOT_READ) ? nowNanos : this.timeSource.nanoTime();
		if (isPastDeadline(context, delay, now)) {
			return STOP_DEADLINE;
		}
		if (this.circuitBreaker != null && this.circuitBreaker.getRemainingOpenNanos() > delay) {
			return STOP_CIRCUIT_OPEN;
		}
		if (this.budget != null && !this.budget.tryAcquireRetry()) {
			return STOP_BUDGET;
		}
		this.counters.eventAt(RetryEventType.RETRY, retries, failure, delay, now);
		this.listeners.onRetry(context, delay);
		return delay;
	}

	/**
	 * Whether an attempt after a wait would start past max-duration.
	 * @param context the call's context
	 * @param delayNanos the wait
	 * @return {@code true} if the instance has a max-duration and the wait reaches its deadline
	 */
	boolean isPastDeadline(MutableRetryContext context, long delayNanos) {
		return this.maxDurationNanos != 0 && isPastDeadline(context, delayNanos, this.timeSource.nanoTime());
	}

	private boolean isPastDeadline(MutableRetryContext context, long delayNanos, long nowNanos) {
		return this.maxDurationNanos != 0 && delayNanos >= context.startNanos + this.maxDurationNanos - nowNanos;
	}

	private long nextDelay(MutableRetryContext context, @Nullable Throwable failure) {
		if (context.cursor == null) {
			context.cursor = this.backoff.start();
		}
		long delay = Math.max(0, context.cursor.nextDelayNanos(context.getRetryCount(), context.previousDelayNanos));
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
	 * Records how a failed call ended (counters and event) before recovery or rethrow.
	 * @param context the call's context
	 * @param block the calling thread's counters
	 * @param reason the {@code STOP_*} reason
	 */
	public void onStop(MutableRetryContext context, ThreadCounters block, long reason) {
		int retries = context.getRetryCount();
		block.outcome(false, retries > 1);
		Throwable failure = context.getLastThrowable();
		if (reason == STOP_BUDGET) {
			block.budgetRejection();
			this.counters.event(RetryEventType.BUDGET_REJECTION, retries, failure, 0);
		}
		else if (reason == STOP_NOT_RETRYABLE) {
			this.counters.event(RetryEventType.NON_RETRYABLE_FAILURE, retries, failure, 0);
		}
		else {
			this.counters.event(RetryEventType.EXHAUSTED, retries, failure, 0);
		}
	}

	/**
	 * Records an attempt refused by the open circuit, and makes the rejection the call's last failure.
	 * @param context the call's context
	 * @param block the calling thread's counters
	 * @return the exception to end the call with when there is no recovery
	 */
	public CircuitOpenException onCircuitRejection(MutableRetryContext context, ThreadCounters block) {
		CircuitOpenException rejection = onRejectedAttempt(context, block);
		block.outcome(false, context.getRetryCount() > 1);
		return rejection;
	}

	/**
	 * Records an attempt refused by the open circuit of a call that does not end with it (a failback
	 * task waits for the circuit, and its outcome is counted when it ends), and makes the rejection the
	 * call's last failure.
	 * @param context the call's context
	 * @param block the calling thread's counters
	 * @return the rejection
	 */
	CircuitOpenException onRejectedAttempt(MutableRetryContext context, ThreadCounters block) {
		CircuitOpenException rejection = java.util.Objects.requireNonNull(this.circuitBreaker).newCircuitOpenException();
		block.circuitRejection();
		context.rejected(rejection);
		this.counters.event(RetryEventType.CIRCUIT_OPEN_REJECTION, context.getRetryCount() + 1, rejection, 0);
		return rejection;
	}

	/**
	 * Ends a call whose decision threw: a result predicate, classifier, extractor, policy or backoff of
	 * the user's. The attempt's own failure is suppressed in the exception, a failed outcome is counted
	 * and the listeners are closed with it.
	 * @param context the call's context
	 * @param block the calling thread's counters
	 * @param thrown what the user's code threw
	 * @param failure the attempt's failure, or {@code null} for a result
	 * @return {@code thrown}, to end the call with
	 */
	Throwable onBrokenDecision(MutableRetryContext context, ThreadCounters block, Throwable thrown,
			@Nullable Throwable failure) {
		if (failure != null && failure != thrown) {
			thrown.addSuppressed(failure);
		}
		block.outcome(false, context.getRetryCount() > 1);
		close(context, thrown);
		return thrown;
	}

	/**
	 * Records a recovery.
	 * @param context the call's context
	 * @param block the calling thread's counters
	 */
	public void onRecovered(MutableRetryContext context, ThreadCounters block) {
		block.recovery();
		this.counters.event(RetryEventType.RECOVERED, Math.max(1, context.getRetryCount()), context.getLastThrowable(), 0);
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

	/**
	 * Waits before a retry of a synchronous call.
	 * @param context the call's context
	 * @param block the calling thread's counters
	 * @param delayNanos the delay; nothing happens when it is zero
	 * @throws RetryInterruptedException if the thread is interrupted while waiting; its flag is set
	 * again, the call is counted as failed and the listeners are closed
	 */
	public void sleep(MutableRetryContext context, ThreadCounters block, long delayNanos) {
		if (delayNanos <= 0) {
			return;
		}
		try {
			this.sleeper.sleep(delayNanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.counters.event(RetryEventType.INTERRUPTED, context.getRetryCount(), context.getLastThrowable(), delayNanos);
			block.outcome(false, context.getRetryCount() > 1);
			RetryInterruptedException interrupted = new RetryInterruptedException("Retry '" + this.name + "' was interrupted while waiting "
					+ Durations.formatNanos(delayNanos) + " before attempt " + (context.getRetryCount() + 1)
					+ "; the cause is the last failure", context.getLastThrowable());
			close(context, interrupted);
			throw interrupted;
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
