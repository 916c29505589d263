package dev.retrykit.spring.boot.observation;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;

import dev.retrykit.context.CallOutcome;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryListener;
import dev.retrykit.circuit.CircuitOpenException;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Records each retried call as a {@code retry.call} observation and each of its attempts as a child
 * {@code retry.attempt} observation (see {@link RetryObservationDocumentation}).
 *
 * <p>The call's observation starts in {@link #open}, as a child of the observation current on the
 * calling thread, and is kept in the call's {@link RetryContext} attributes; each attempt's starts in
 * {@link #beforeAttempt} with the call's as its explicit parent, so an async retry or a failback task
 * whose attempt runs on an executor's thread is still a child of its call. The call is in scope only
 * while an attempt's observation starts (tracing handlers take the span in scope as the parent). The
 * attempt is in scope on its thread while its code runs, from {@link #beforeAttempt} to
 * {@link #attemptReturned}, so that what the code observes (an HTTP client's request, a query) hangs
 * under the attempt; for an async attempt that is while its supplier starts it, since its stage
 * completes on another thread. An attempt ends in {@link #onSuccess} or {@link #onError}, the call in
 * {@link #close}, which removes the attribute and empties its holder: a stateful call's context is copied
 * into the context cache before it is closed, and that copy then keeps only the empty holder, no
 * observation.
 *
 * <p>The copies of a hedged call are attempts side by side: the engine tells each callback's copy by
 * its context (retry count and {@code retry.hedged}), and each copy is a {@code retry.attempt} with key
 * {@code hedged}. A copy still in flight when the call ends (a loser, once another copy won) is stopped
 * with the call, with a {@link CancellationException} as its error (or the caller's own cancellation).
 *
 * <p>Thread-safe: a call's state lives in its context, guarded by itself; the listener keeps only the
 * key values of each instance, made once. Registered only on instances whose observations are on (see
 * {@link #isObserving}), so an application with no or a no-op {@link ObservationRegistry} pays nothing.
 */
public final class RetryObservationListener implements RetryListener {

	/** The context attribute that holds a call's observations. */
	static final String ATTRIBUTE = RetryObservationListener.class.getName();

	/** The engine's context attribute that tells a hedged call's copy: {@code true} after the first. */
	static final String HEDGED = "retry.hedged";

	/** How many instances get key values made once; the calls of any further one make their own. */
	static final int MAX_CACHED_INSTANCES = 1024;

	private static final DefaultRetryObservationConvention DEFAULT_CALL_CONVENTION = new DefaultRetryObservationConvention();

	private static final DefaultRetryAttemptObservationConvention DEFAULT_ATTEMPT_CONVENTION = new DefaultRetryAttemptObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable RetryObservationConvention callConvention;

	private final @Nullable RetryAttemptObservationConvention attemptConvention;

	private final Map<String, InstanceKeyValues> instanceKeys = new ConcurrentHashMap<>();

	/**
	 * A listener with the default conventions.
	 * @param registry where observations are recorded
	 */
	public RetryObservationListener(ObservationRegistry registry) {
		this(registry, null, null);
	}

	/**
	 * @param registry where observations are recorded
	 * @param callConvention the convention of {@code retry.call}, or {@code null} for the default
	 * @param attemptConvention the convention of {@code retry.attempt}, or {@code null} for the default
	 */
	public RetryObservationListener(ObservationRegistry registry, @Nullable RetryObservationConvention callConvention,
			@Nullable RetryAttemptObservationConvention attemptConvention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.callConvention = callConvention;
		this.attemptConvention = attemptConvention;
	}

	/**
	 * Whether the calls of an instance would be observed: not when the registry is a no-op one (also
	 * one with no handler) or when its predicates (e.g. Boot's {@code management.observations.enable.retry=false})
	 * turn both observations off for that instance.
	 * @param retryName the instance name
	 * @return whether registering this listener on the instance records anything
	 */
	public boolean isObserving(String retryName) {
		if (this.registry.isNoop()) {
			return false;
		}
		return !callObservation(new RetryObservationContext(retryName)).isNoop()
				|| !attemptObservation(new RetryAttemptObservationContext(retryName, 1)).isNoop();
	}

	@Override
	public boolean open(RetryContext context) {
		RetryObservationContext callContext = new RetryObservationContext(context.getName(), keys(context.getName()));
		Observation call = callObservation(callContext).start();
		context.setAttribute(ATTRIBUTE, new CallObservation(call, callContext));
		return true;
	}

	@Override
	public void beforeAttempt(RetryContext context) {
		CallObservation state = state(context);
		if (state == null) {
			return;
		}
		Object hedged = context.getAttribute(HEDGED);
		synchronized (state) {
			Observation call = state.call;
			if (call == null) {
				return;
			}
			if (hedged == null) {
				// Attempts follow one another: one that never reported ends as the next starts.
				state.endRunning(null);
			}
			else {
				state.hedged = true;
			}
			RetryAttemptObservationContext attemptContext = new RetryAttemptObservationContext(context.getName(),
					context.getRetryCount() + 1, Boolean.TRUE.equals(hedged), state.callContext.keys);
			// Tracing handlers prefer the span in scope on this thread (e.g. the HTTP request's) to the parent
			// observation's: the call is in scope only while its attempt starts, opened and closed right here.
			Observation attempt;
			attemptContext.running = true;
			try (Observation.Scope scope = call.openScope()) {
				attempt = attemptObservation(attemptContext).parentObservation(call).start();
			}
			attemptContext.observation = attempt;
			attemptContext.scope = attempt.openScope();
			attemptContext.earlier = state.running;
			state.running = attemptContext;
		}
	}

	@Override
	public void attemptReturned(RetryContext context) {
		CallObservation state = state(context);
		if (state == null) {
			return;
		}
		Observation.Scope scope;
		synchronized (state) {
			RetryAttemptObservationContext attempt = state.attempt(context);
			if (attempt == null || attempt.scope == null) {
				return;
			}
			scope = attempt.scope;
			attempt.scope = null;
			state.forgetIfEnded(attempt);
		}
		scope.close();
	}

	@Override
	public void onSuccess(RetryContext context, @Nullable Object result) {
		attemptEnded(context, null);
	}

	@Override
	public void onError(RetryContext context, @Nullable Throwable failure) {
		attemptEnded(context, failure);
	}

	private void attemptEnded(RetryContext context, @Nullable Throwable failure) {
		CallObservation state = state(context);
		if (state != null) {
			synchronized (state) {
				RetryAttemptObservationContext attempt = state.attempt(context);
				if (attempt != null) {
					state.end(attempt, failure);
				}
			}
		}
	}

	@Override
	public void close(RetryContext context, @Nullable Throwable failure) {
		CallObservation state = state(context);
		if (state == null) {
			return;
		}
		Observation call;
		synchronized (state) {
			call = state.call;
			if (call == null) {
				return;
			}
			state.call = null;
			// An attempt that never reported (an async call cancelled while it started) ends with the call;
			// a hedged call's copies still in flight were cancelled as it ended.
			if (state.running != null) {
				state.endRunning(state.hedged ? cancellation(failure) : failure);
			}
			if (state.running == null) {
				// Else a copy's scope is still open on the thread running its supplier: attemptReturned closes it.
				context.setAttribute(ATTRIBUTE, null);
			}
		}
		// The outcome the engine decided and counted; a context that carries none ended as its failure says.
		CallOutcome decided = context.getOutcome();
		if (decided == null) {
			decided = (failure != null) ? CallOutcome.failed(context.getRetryCount() > 1)
					: CallOutcome.successful(context.getRetryCount() > 0);
		}
		boolean successful = decided == CallOutcome.SUCCESSFUL_WITHOUT_RETRY || decided == CallOutcome.SUCCESSFUL_WITH_RETRY;
		// A recovered call, or one that ended with its last rejected result, is told by its last failure.
		Throwable cause = (failure != null || successful) ? failure : context.getLastThrowable();
		state.callContext.setOutcome(RetryCallOutcome.of(decided));
		state.callContext.setFailure(cause);
		if (failure != null) {
			call.error(failure);
		}
		call.stop();
	}

	/**
	 * What a hedged call's copy still in flight as the call ended is stopped with: the caller's
	 * cancellation, or one of its own.
	 */
	private static CancellationException cancellation(@Nullable Throwable failure) {
		if (failure instanceof CancellationException cancelled) {
			return cancelled;
		}
		return new CancellationException((failure != null)
				? "The hedged call ended with " + failure.getClass().getName() + " and cancelled this copy"
				: "Another copy of the hedged call won and cancelled this copy");
	}

	/** The instance's key values, made once per name for the first {@value #MAX_CACHED_INSTANCES} names. */
	private @Nullable InstanceKeyValues keys(String retryName) {
		InstanceKeyValues keys = this.instanceKeys.get(retryName);
		if (keys == null && this.instanceKeys.size() < MAX_CACHED_INSTANCES) {
			keys = this.instanceKeys.computeIfAbsent(retryName, InstanceKeyValues::new);
		}
		return keys;
	}

	private Observation callObservation(RetryObservationContext context) {
		return RetryObservationDocumentation.RETRY_CALL.observation(this.callConvention, DEFAULT_CALL_CONVENTION,
				() -> context, this.registry);
	}

	private Observation attemptObservation(RetryAttemptObservationContext context) {
		return RetryObservationDocumentation.RETRY_ATTEMPT.observation(this.attemptConvention,
				DEFAULT_ATTEMPT_CONVENTION, () -> context, this.registry);
	}

	private static @Nullable CallObservation state(RetryContext context) {
		return (context.getAttribute(ATTRIBUTE) instanceof CallObservation state) ? state : null;
	}

	@Override
	public String toString() {
		return "RetryObservationListener";
	}

	/**
	 * The observations of one call: its own, and its attempts running (one at most, but for a hedged
	 * call's copies, which run side by side). Guarded by itself: a hedged call's copies report on
	 * different threads at once; any other call's steps are handed from thread to thread by the engine.
	 */
	static final class CallObservation {

		/** The call's observation, {@code null} once the call has ended. */
		@Nullable Observation call;

		final RetryObservationContext callContext;

		/** The attempts running, the latest first, linked through {@link RetryAttemptObservationContext#earlier}. */
		@Nullable RetryAttemptObservationContext running;

		/** Whether the call hedges: told by the copies' contexts ({@value #HEDGED}). */
		boolean hedged;

		CallObservation(Observation call, RetryObservationContext callContext) {
			this.call = call;
			this.callContext = callContext;
		}

		boolean isEnded() {
			return this.call == null && this.running == null;
		}

		/**
		 * {@return the running attempt a callback is about: for a hedged call's copy, the one of its
		 * number; else the latest}
		 */
		@Nullable RetryAttemptObservationContext attempt(RetryContext context) {
			if (context.getAttribute(HEDGED) == null) {
				return this.running;
			}
			int number = context.getRetryCount() + 1;
			for (RetryAttemptObservationContext attempt = this.running; attempt != null; attempt = attempt.earlier) {
				if (attempt.getAttempt() == number) {
					return attempt;
				}
			}
			return null;
		}

		/** Stops an attempt's observation; it stays on the running list while its scope is open. */
		void end(RetryAttemptObservationContext attempt, @Nullable Throwable failure) {
			Observation observation = attempt.observation;
			if (observation == null) {
				return;
			}
			attempt.observation = null;
			attempt.running = false;
			if (failure != null) {
				attempt.setFailure(failure);
				observation.error(failure);
			}
			observation.stop();
			forgetIfEnded(attempt);
		}

		/** Ends every attempt still running. */
		void endRunning(@Nullable Throwable failure) {
			RetryAttemptObservationContext attempt = this.running;
			while (attempt != null) {
				// Read first: ending an attempt whose scope is closed takes it off the list.
				RetryAttemptObservationContext earlier = attempt.earlier;
				end(attempt, failure);
				attempt = earlier;
			}
		}

		/** Takes an attempt off the running list once it is stopped and its scope closed. */
		void forgetIfEnded(RetryAttemptObservationContext ended) {
			if (ended.observation != null || ended.scope != null) {
				return;
			}
			RetryAttemptObservationContext later = null;
			for (RetryAttemptObservationContext attempt = this.running; attempt != null; attempt = attempt.earlier) {
				if (attempt == ended) {
					unlink(attempt, later);
					return;
				}
				later = attempt;
			}
		}

		private void unlink(RetryAttemptObservationContext attempt, @Nullable RetryAttemptObservationContext later) {
			if (later == null) {
				this.running = attempt.earlier;
			}
			else {
				later.earlier = attempt.earlier;
			}
			attempt.earlier = null;
		}

	}

}
