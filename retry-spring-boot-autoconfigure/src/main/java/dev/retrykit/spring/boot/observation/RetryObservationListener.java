package dev.retrykit.spring.boot.observation;

import java.util.Objects;

import dev.retrykit.CallOutcome;
import dev.retrykit.RetryContext;
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
 * <p>Thread-safe: it holds no per-call state; a call's state lives in its context, used by one attempt
 * at a time. Registered only on instances whose observations are on (see {@link #isObserving}), so an
 * application with no or a no-op {@link ObservationRegistry} pays nothing.
 */
public final class RetryObservationListener implements RetryListener {

	/** The context attribute that holds a call's observations. */
	static final String ATTRIBUTE = RetryObservationListener.class.getName();

	private static final DefaultRetryObservationConvention DEFAULT_CALL_CONVENTION = new DefaultRetryObservationConvention();

	private static final DefaultRetryAttemptObservationConvention DEFAULT_ATTEMPT_CONVENTION = new DefaultRetryAttemptObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable RetryObservationConvention callConvention;

	private final @Nullable RetryAttemptObservationConvention attemptConvention;

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
		RetryObservationContext callContext = new RetryObservationContext(context.getName());
		Observation call = callObservation(callContext).start();
		context.setAttribute(ATTRIBUTE, new CallObservation(call, callContext));
		return true;
	}

	@Override
	public void beforeAttempt(RetryContext context) {
		CallObservation state = state(context);
		if (state == null || state.call == null) {
			return;
		}
		state.endAttempt(null);
		RetryAttemptObservationContext attemptContext = new RetryAttemptObservationContext(context.getName(),
				context.getRetryCount() + 1);
		state.attemptContext = attemptContext;
		Observation call = state.call;
		// Tracing handlers prefer the span in scope on this thread (e.g. the HTTP request's) to the parent
		// observation's: the call is in scope only while its attempt starts, opened and closed right here.
		Observation attempt;
		try (Observation.Scope scope = call.openScope()) {
			attempt = attemptObservation(attemptContext).parentObservation(call).start();
		}
		state.attempt = attempt;
		state.attemptScope = attempt.openScope();
	}

	@Override
	public void attemptReturned(RetryContext context) {
		CallObservation state = state(context);
		if (state == null) {
			return;
		}
		Observation.Scope scope = state.attemptScope;
		if (scope != null) {
			state.attemptScope = null;
			scope.close();
		}
	}

	@Override
	public void onSuccess(RetryContext context, @Nullable Object result) {
		CallObservation state = state(context);
		if (state != null) {
			state.endAttempt(null);
		}
	}

	@Override
	public void onError(RetryContext context, @Nullable Throwable failure) {
		CallObservation state = state(context);
		if (state != null) {
			state.endAttempt(failure);
		}
	}

	@Override
	public void close(RetryContext context, @Nullable Throwable failure) {
		CallObservation state = state(context);
		if (state == null || state.call == null || state.callContext == null) {
			return;
		}
		context.setAttribute(ATTRIBUTE, null);
		// An attempt that never reported (an async call cancelled while it started) ends with the call.
		state.endAttempt(failure);
		// The outcome the engine decided and counted; a context that carries none ended as its failure says.
		CallOutcome decided = context.getOutcome();
		if (decided == null) {
			decided = (failure != null) ? CallOutcome.failed(context.getRetryCount() > 1)
					: CallOutcome.successful(context.getRetryCount() > 0);
		}
		RetryCallOutcome outcome = RetryCallOutcome.of(decided);
		boolean successful = decided == CallOutcome.SUCCESSFUL_WITHOUT_RETRY || decided == CallOutcome.SUCCESSFUL_WITH_RETRY;
		// A recovered call, or one that ended with its last rejected result, is told by its last failure.
		Throwable cause = (failure != null || successful) ? failure : context.getLastThrowable();
		Observation call = state.call;
		state.callContext.setOutcome(outcome);
		state.callContext.setFailure(cause);
		state.call = null;
		state.callContext = null;
		if (failure != null) {
			call.error(failure);
		}
		call.stop();
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
	 * The observations of one call. Used by one attempt at a time; the engine's hand-off between
	 * threads (scheduler, executor, future completion) makes each step see the previous one's writes.
	 */
	static final class CallObservation {

		/** The call's observation, {@code null} once the call has ended. */
		@Nullable Observation call;

		@Nullable RetryObservationContext callContext;

		@Nullable Observation attempt;

		@Nullable RetryAttemptObservationContext attemptContext;

		/** The attempt's scope, open on its thread from beforeAttempt to attemptReturned. */
		Observation.@Nullable Scope attemptScope;

		CallObservation(Observation call, RetryObservationContext callContext) {
			this.call = call;
			this.callContext = callContext;
		}

		boolean isEnded() {
			return this.call == null && this.attempt == null;
		}

		void endAttempt(@Nullable Throwable failure) {
			Observation running = this.attempt;
			if (running == null) {
				return;
			}
			this.attempt = null;
			if (failure != null) {
				Objects.requireNonNull(this.attemptContext).setFailure(failure);
				running.error(failure);
			}
			running.stop();
		}

	}

}
