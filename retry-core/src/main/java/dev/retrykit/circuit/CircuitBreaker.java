package dev.retrykit.circuit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.Callable;

import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * A circuit breaker with Dapr's semantics, usable inside a retry template or on its own.
 *
 * <p>While {@link CircuitState#CLOSED closed} every call is permitted and outcomes are counted; each
 * failure evaluates the {@linkplain CircuitBreakerConfig#getTrip() trip expression} and the circuit
 * opens when it is true. While {@link CircuitState#OPEN open} calls are rejected until the
 * {@linkplain CircuitBreakerConfig#getTimeout() timeout} has passed; then the circuit is
 * {@link CircuitState#HALF_OPEN half-open} and lets at most
 * {@linkplain CircuitBreakerConfig#getMaxRequests() maxRequests} trial calls run at once. A trial
 * failure opens it again; {@code maxRequests} trial successes close it. Every transition starts
 * with fresh counts.
 *
 * <p>Use: {@link #execute(Callable)} runs a call through the breaker (asks for permission, runs
 * it, records its outcome); a {@link dev.retrykit.RetryTemplate} with a breaker passes every attempt
 * through it. Code that runs calls itself (the retry engine, a decorator) uses the permit protocol
 * underneath: {@link #acquirePermission()}, then exactly one of {@link #onSuccess(long)},
 * {@link #onFailure(long)} or {@link #releasePermission(long)} with the permit it returned. A permit
 * ties the outcome to the generation of the breaker that admitted the call (each transition starts a
 * new generation, and an outcome from an earlier one is ignored), so a slow call admitted before the
 * circuit opened cannot close it or use up a trial slot later.
 *
 * <p>Thread-safety: fully thread-safe and lock-free. State and counts live in a window object
 * whose state is final and whose counts are atomic; a transition (or the clearing of counts after
 * an interval) publishes a fresh window with one compare-and-set, so resets are atomic, exactly one
 * thread wins each transition and notifies the listeners, and the losers simply see the new window.
 * Closed, asking for permission is one volatile read; recording an outcome is an atomic
 * add (plus a clock read when an interval is set); neither allocates. Only transitions allocate (a
 * window of a few dozen bytes). Time comes only from the {@link TimeSource}: nothing here sleeps or
 * starts a thread; timeouts and intervals are applied lazily when the breaker is next used.
 */
public final class CircuitBreaker {

	/** Returned by {@link #acquirePermission()} when the call is rejected. Permits are never negative. */
	public static final long NO_PERMISSION = -1L;

	private static final VarHandle CURRENT;

	static {
		try {
			CURRENT = MethodHandles.lookup().findVarHandle(CircuitBreaker.class, "current", CircuitWindow.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final String name;

	private volatile CircuitBreakerConfig config;

	private final TimeSource timeSource;

	private volatile TripExpression trip;

	private volatile long intervalNanos;

	private volatile long timeoutNanos;

	private volatile int maxRequests;

	private final CircuitStateListeners listeners = new CircuitStateListeners();

	private volatile CircuitWindow current;

	private CircuitBreaker(String name, CircuitBreakerConfig config, TimeSource timeSource) {
		this.name = name;
		this.config = config;
		this.timeSource = timeSource;
		this.trip = config.getTripExpression();
		this.intervalNanos = config.getInterval().toNanos();
		this.timeoutNanos = config.getTimeout().toNanos();
		this.maxRequests = config.getMaxRequests();
		this.current = new CircuitWindow(CircuitState.CLOSED, 0, timeSource.nanoTime(), false);
	}

	/**
	 * Swaps the configuration of a live breaker, keeping its state, window counts and listeners: a
	 * changed trip expression applies from the next evaluation, a changed timeout from the next check of
	 * an open circuit, a changed interval and max-requests likewise from their next use. Used by
	 * {@code RetryRegistry.replace}; thread-safe (each setting is read once where a decision uses it).
	 * @param config the new configuration
	 * @throws NullPointerException if {@code config} is {@code null}
	 */
	public void reconfigure(CircuitBreakerConfig config) {
		Objects.requireNonNull(config, "config must not be null");
		this.trip = config.getTripExpression();
		this.intervalNanos = config.getInterval().toNanos();
		this.timeoutNanos = config.getTimeout().toNanos();
		this.maxRequests = config.getMaxRequests();
		this.config = config;
	}

	/**
	 * Creates a closed breaker.
	 * @param name the name, shown in messages and metrics; not blank
	 * @param config the configuration
	 * @param timeSource where the breaker reads time, {@link TimeSource#SYSTEM} outside tests
	 * @return the breaker
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if {@code name} is blank
	 */
	public static CircuitBreaker create(String name, CircuitBreakerConfig config, TimeSource timeSource) {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isBlank()) {
			throw new IllegalArgumentException("Invalid name '" + name + "': must not be blank");
		}
		Objects.requireNonNull(config, "config must not be null");
		Objects.requireNonNull(timeSource, "timeSource must not be null");
		return new CircuitBreaker(name, config, timeSource);
	}

	/**
	 * Asks to run a call. Closed: always a permit, in a few nanoseconds and without allocating. Open:
	 * {@link #NO_PERMISSION} until the timeout has passed, then the circuit turns half-open. Half-open:
	 * a permit while fewer than {@code maxRequests} trial calls are in flight. A permitted call must be
	 * followed by exactly one {@link #onSuccess(long)}, {@link #onFailure(long)} or
	 * {@link #releasePermission(long)} with its permit, which ties the outcome to the generation that
	 * admitted the call. Allocates nothing. A permit that is never reported keeps a half-open trial
	 * slot until the next transition.
	 * @return a permit (zero or more), or {@link #NO_PERMISSION} when the call is rejected
	 */
	public long acquirePermission() {
		CircuitWindow window = this.current;
		return (window.state == CircuitState.CLOSED) ? window.permit : acquire(window);
	}

	private long acquire(CircuitWindow seen) {
		CircuitWindow window = seen;
		for (;;) {
			if (window.state == CircuitState.CLOSED) {
				return window.permit;
			}
			if (window.state == CircuitState.OPEN) {
				if (remainingOpenNanos(window) > 0) {
					return NO_PERMISSION;
				}
				transition(window, CircuitState.HALF_OPEN, false);
			}
			else if (window.tryAdmitTrial(this.maxRequests)) {
				// The slot counts only if the window was still current after we took it.
				if (this.current == window) {
					return window.permit;
				}
				window.releaseTrial();
			}
			else if (this.current == window) {
				return NO_PERMISSION;
			}
			window = this.current;
		}
	}

	/**
	 * Records the success of a call admitted with {@code permit}; ignored if the breaker has changed
	 * state since, or if the permit is {@link #NO_PERMISSION}.
	 * @param permit the value returned by {@link #acquirePermission()}
	 */
	public void onSuccess(long permit) {
		if (permit >= 0) {
			recordSuccess(permit);
		}
	}

	/**
	 * Records the failure of a call admitted with {@code permit}; ignored if the breaker has changed
	 * state since, or if the permit is {@link #NO_PERMISSION}.
	 * @param permit the value returned by {@link #acquirePermission()}
	 */
	public void onFailure(long permit) {
		if (permit >= 0) {
			recordFailure(permit);
		}
	}

	/**
	 * Gives back the permission of a call admitted with {@code permit} without an outcome; ignored if
	 * the breaker has changed state since.
	 * @param permit the value returned by {@link #acquirePermission()}
	 */
	public void releasePermission(long permit) {
		if (permit >= 0) {
			release(permit);
		}
	}

	private void recordSuccess(long permit) {
		CircuitWindow window = windowToRecord(permit);
		if (window == null) {
			return;
		}
		if (window.state == CircuitState.CLOSED) {
			window.recordSuccess();
		}
		else if (window.state == CircuitState.HALF_OPEN && window.completeTrialWithSuccess() >= this.maxRequests) {
			transition(window, CircuitState.CLOSED, false);
		}
	}

	private void recordFailure(long permit) {
		CircuitWindow window = windowToRecord(permit);
		if (window == null) {
			return;
		}
		if (window.state == CircuitState.CLOSED) {
			if (window.recordFailure(this.trip)) {
				transition(window, CircuitState.OPEN, false);
			}
		}
		else if (window.state == CircuitState.HALF_OPEN) {
			transition(window, CircuitState.OPEN, false);
		}
	}

	/**
	 * The window an outcome of the call admitted with {@code permit} counts in: the current one, a
	 * closed one rolled over first if its interval has passed.
	 * @return {@code null} if the window that admitted the call is no longer the current one (the
	 * outcome is ignored)
	 */
	private @Nullable CircuitWindow windowToRecord(long permit) {
		CircuitWindow window = this.current;
		for (;;) {
			if (window.permit != permit) {
				return null;
			}
			if (window.state != CircuitState.CLOSED) {
				return window;
			}
			CircuitWindow live = rollover(window);
			if (live == window) {
				return window;
			}
			window = live;
		}
	}

	private void release(long permit) {
		CircuitWindow window = this.current;
		if (window.state == CircuitState.HALF_OPEN && window.permit == permit) {
			window.releaseTrial();
		}
	}

	/**
	 * Clears the counts of a closed window once the interval has passed.
	 * @return {@code window} if it is still the one to count in, else the window that replaced it
	 */
	private CircuitWindow rollover(CircuitWindow window) {
		if (this.intervalNanos == 0) {
			return window;
		}
		long now = this.timeSource.nanoTime();
		if (now - window.sinceNanos < this.intervalNanos) {
			return window;
		}
		CircuitWindow fresh = new CircuitWindow(CircuitState.CLOSED, window.generation, now, false);
		return CURRENT.compareAndSet(this, window, fresh) ? fresh : this.current;
	}

	private boolean transition(CircuitWindow from, CircuitState to, boolean forced) {
		CircuitWindow next = new CircuitWindow(to, from.generation + 1, this.timeSource.nanoTime(), forced);
		if (!CURRENT.compareAndSet(this, from, next)) {
			return false;
		}
		if (from.state != to) {
			this.listeners.notify(this, from.state, to);
		}
		return true;
	}

	/**
	 * Opens the circuit by hand. A forced-open circuit ignores the timeout: it rejects every call
	 * until {@link #close()} is called. Does nothing if it is already forced open.
	 */
	public void forceOpen() {
		for (;;) {
			CircuitWindow window = this.current;
			if ((window.state == CircuitState.OPEN && window.forced) || transition(window, CircuitState.OPEN, true)) {
				return;
			}
		}
	}

	/**
	 * Opens the circuit as if its trip expression had become true, e.g. because the replicas that share
	 * it tripped: it rejects calls until the timeout has passed, then turns half-open. Listeners are
	 * told. Does nothing if it is already open.
	 */
	public void tripOpen() {
		for (;;) {
			CircuitWindow window = this.current;
			if (window.state == CircuitState.OPEN || transition(window, CircuitState.OPEN, false)) {
				return;
			}
		}
	}

	/** Closes the circuit by hand, with fresh counts, from any state. Does nothing if it is closed. */
	public void close() {
		for (;;) {
			CircuitWindow window = this.current;
			if (window.state == CircuitState.CLOSED || transition(window, CircuitState.CLOSED, false)) {
				return;
			}
		}
	}

	/**
	 * Returns the state. An open circuit whose timeout has passed turns half-open here (notifying
	 * listeners on this thread), so the state reported never lags behind the clock.
	 * @return the current state
	 */
	public CircuitState getState() {
		return refresh().state;
	}

	/** {@return whether the circuit was opened by {@link #forceOpen()} and not closed since} */
	public boolean isForcedOpen() {
		CircuitWindow window = this.current;
		return window.state == CircuitState.OPEN && window.forced;
	}

	/**
	 * {@return the nanoseconds until an open circuit lets trial calls through: 0 unless open (or when
	 * the timeout has just passed), {@link CircuitOpenException#FOREVER} when forced open and only then}
	 */
	public long getRemainingOpenNanos() {
		return remainingOpenNanos(this.current);
	}

	private long remainingOpenNanos(CircuitWindow window) {
		if (window.state != CircuitState.OPEN) {
			return 0;
		}
		if (window.forced) {
			return CircuitOpenException.FOREVER;
		}
		// Short of FOREVER even for the longest timeout: FOREVER is how a rejection tells it was forced.
		long remaining = this.timeoutNanos - (this.timeSource.nanoTime() - window.sinceNanos);
		return Math.max(0, Math.min(remaining, CircuitOpenException.FOREVER - 1));
	}

	/**
	 * Takes a snapshot of the counts. Like {@link #getState()} it applies a due timeout, and it
	 * clears counts whose interval has passed. Allocates the snapshot.
	 * @return the counts of the current window
	 */
	public CircuitBreakerMetrics getMetrics() {
		CircuitWindow window = refresh();
		return ((window.state == CircuitState.CLOSED) ? rollover(window) : window).snapshot();
	}

	private CircuitWindow refresh() {
		CircuitWindow window = this.current;
		if (window.state == CircuitState.OPEN && remainingOpenNanos(window) == 0 && !window.forced) {
			transition(window, CircuitState.HALF_OPEN, false);
			window = this.current;
		}
		return window;
	}

	/**
	 * Describes why a call is being rejected now, with the call's earlier failure as the cause.
	 * @param cause the failure of the call's previous attempt, or {@code null} if it had none
	 * @return a new exception naming this breaker, its state and its remaining open time
	 */
	public CircuitOpenException newCircuitOpenException(@Nullable Throwable cause) {
		CircuitWindow window = this.current;
		return new CircuitOpenException(this.name, window.state, remainingOpenNanos(window), cause);
	}

	/**
	 * Runs a call through the breaker: asks for permission, runs it, records the outcome. Any
	 * exception or error counts as a failure, except {@link InterruptedException}, which releases the
	 * permission (the call was cancelled, not failed). The exception is rethrown unchanged.
	 * @param callable the call
	 * @param <T> the type of its result
	 * @return its result
	 * @throws CircuitOpenException if the breaker rejects the call; the callable is not run
	 * @throws Exception whatever the callable throws
	 */
	public <T> T execute(Callable<T> callable) throws Exception {
		Objects.requireNonNull(callable, "callable must not be null");
		long permit = acquirePermission();
		if (permit == NO_PERMISSION) {
			throw newCircuitOpenException(null);
		}
		T result;
		try {
			result = callable.call();
		}
		catch (InterruptedException ex) {
			releasePermission(permit);
			throw ex;
		}
		catch (Throwable ex) {
			onFailure(permit);
			throw ex;
		}
		onSuccess(permit);
		return result;
	}

	/**
	 * Registers a listener for state transitions; see {@link CircuitStateListener} for when and on
	 * which thread it is called. A listener added twice is called twice.
	 * @param listener the listener
	 * @throws NullPointerException if {@code listener} is {@code null}
	 */
	public void addStateListener(CircuitStateListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * Removes a state listener.
	 * @param listener a registered listener
	 * @return whether it was registered (one registration is removed)
	 */
	public boolean removeStateListener(CircuitStateListener listener) {
		return this.listeners.remove(listener);
	}

	/** {@return how many times a state listener has thrown an exception (each was caught and logged)} */
	public long getListenerFailureCount() {
		return this.listeners.failures();
	}

	/** {@return the name} */
	public String getName() {
		return this.name;
	}

	/** {@return the configuration} */
	public CircuitBreakerConfig getConfig() {
		return this.config;
	}

	/** @return the name, state and counts; reads without applying a due timeout or interval */
	@Override
	public String toString() {
		CircuitWindow window = this.current;
		CircuitBreakerMetrics metrics = window.snapshot();
		return "CircuitBreaker{name='" + this.name + "', state=" + window.state + (window.forced ? " (forced)" : "")
				+ ", consecutiveFailures=" + metrics.consecutiveFailures() + ", totalFailures=" + metrics.totalFailures()
				+ ", totalSuccesses=" + metrics.totalSuccesses() + ", config=" + this.config + "}";
	}

}
