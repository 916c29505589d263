package dev.retrykit.spring.boot.aop;

import java.util.function.UnaryOperator;

import dev.retrykit.RetryCallDescriber;
import dev.retrykit.context.RetryContext;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * An attempt of an intercepted call, which may run after the retry interceptor has returned, on another
 * thread (an async retry, a failback task, a copy of a hedged call), or on the caller's (a blocking retry's
 * attempt, in {@link CallerContext#none()}): it runs the rest of the chain from
 * where the call entered the retry interceptor ({@link AttemptInvoker#start}), or, for a hedged call, a copy through
 * {@link HedgedInvocation}; in the caller's {@link CallerContext}; and tells the call's listeners its
 * invocation ({@link MethodListeners}). Each kind of call extends it into the operation its engine takes.
 * Thread-safe; one per call.
 */
abstract class InvocationAttempt implements RetryCallDescriber {

	private final MethodInvocation invocation;

	/**
	 * What each attempt proceeds: the invocation, or a pristine clone ({@link AttemptInvoker#start}); a hedged
	 * call's copies proceed on their own ({@link HedgedInvocation}).
	 */
	private final MethodInvocation start;

	private final CallerContext caller;

	/** A hedged call's copies, each on its own invocation; {@code null} when the call does not hedge. */
	private final @Nullable HedgedInvocation copies;

	/**
	 * Notes where attempts start; call on entry to the retry interceptor.
	 * @param invocation the invocation as the retry interceptor received it
	 * @param caller the context the attempts run in
	 * @param copies the hedged call's copies, or {@code null} when the call does not hedge
	 */
	InvocationAttempt(MethodInvocation invocation, CallerContext caller, @Nullable HedgedInvocation copies) {
		this(invocation, (copies != null) ? invocation : AttemptInvoker.start(invocation), caller, copies);
	}

	/**
	 * An attempt whose start is already known.
	 * @param invocation the invocation as the retry interceptor received it
	 * @param start what each attempt proceeds ({@link AttemptInvoker#start}); not used when the call hedges
	 * @param caller the context the attempts run in
	 * @param copies the hedged call's copies, or {@code null} when the call does not hedge
	 */
	InvocationAttempt(MethodInvocation invocation, MethodInvocation start, CallerContext caller,
			@Nullable HedgedInvocation copies) {
		this.invocation = invocation;
		this.start = start;
		this.caller = caller;
		this.copies = copies;
	}

	/**
	 * Runs one attempt, or one copy of a hedged call, in the caller's context.
	 * @param context the attempt's (or copy's) context as the engine handed it; {@code null} where the
	 * engine hands none (a failback task, whose calls never hedge)
	 * @return the attempt's result
	 * @throws Throwable the attempt's failure
	 */
	final @Nullable Object proceed(@Nullable RetryContext context) throws Throwable {
		return proceed(context, null);
	}

	/**
	 * Runs one attempt, or one copy of a hedged call, in the caller's context; with {@code lastArgument}, on a
	 * clone of its own whose last argument it replaces (a suspend function's {@code Continuation}).
	 * @param context the attempt's (or copy's) context as the engine handed it, or {@code null} (a failback task)
	 * @param lastArgument replaces the last argument on the attempt's own clone, or {@code null}
	 * @return the attempt's result
	 * @throws Throwable the attempt's failure
	 */
	final @Nullable Object proceed(@Nullable RetryContext context,
			@Nullable UnaryOperator<@Nullable Object> lastArgument) throws Throwable {
		try (CallerContext.Scope scope = this.caller.restore()) {
			HedgedInvocation hedged = this.copies;
			MethodInvocation attempt;
			if (hedged != null) {
				attempt = hedged.start();
			}
			else {
				HedgedInvocation.refuseHedgeOnSharedInvocation(context);
				attempt = this.start;
			}
			return (lastArgument != null) ? AttemptInvoker.proceedOnClone(attempt, lastArgument) : attempt.proceed();
		}
	}

	/**
	 * Runs the call's recovery in the caller's context.
	 * @param recover the method's recover methods
	 * @param failure the last attempt's failure
	 * @return the recover method's result
	 * @throws Exception the recover method's failure
	 */
	final @Nullable Object recover(RecoverMethods recover, @Nullable Throwable failure) throws Exception {
		try (CallerContext.Scope scope = this.caller.restore()) {
			return recover.recover(this.invocation, failure);
		}
	}

	@Override
	public final void describe(RetryContext context) {
		MethodListeners.describe(context, this.invocation);
	}

}
