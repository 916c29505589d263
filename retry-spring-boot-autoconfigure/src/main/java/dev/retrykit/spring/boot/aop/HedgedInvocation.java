package dev.retrykit.spring.boot.aop;


import dev.retrykit.RetryConfig;
import dev.retrykit.RetryTemplate;
import dev.retrykit.context.RetryContext;
import dev.retrykit.hedging.HedgingConfig;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Runs the copies of one hedged call of a method, each through the whole rest of the interceptor chain.
 *
 * <p>Copies of a hedged call run at the same time (a hedge while the first copy is inside the chain, a
 * copy started by a failure while a hedge is). Where the retry interceptor is innermost, every copy
 * proceeds on the invocation itself, which then only invokes the target ({@link AttemptInvoker}). Where
 * interceptors sit inside it, every copy proceeds on its own clone of a pristine clone taken on entry,
 * so that no copy skips the interceptors another has passed. Spring's clones share one map of user
 * attributes ({@link ProxyMethodInvocation#invocableClone()}); an inner interceptor that writes user
 * attributes (Spring's AspectJ advice caches its join point there) is therefore not safe to run in
 * copies at the same time: order the retry interceptor innermost ({@code retry.aspect-order}) for a
 * hedging method with such advice inside. Thread-safe once made; one per call.
 */
final class HedgedInvocation {

	/** The attribute that tells a copy after the first of a hedged call that it is a hedge. */
	private static final String HEDGED = "retry.hedged";

	/** What each copy proceeds: the invocation, or a pristine clone ({@link AttemptInvoker#start}). */
	private final MethodInvocation start;

	/**
	 * Notes where copies start; call on entry to the retry interceptor, before the first copy runs.
	 * @param invocation the invocation as the retry interceptor received it
	 */
	HedgedInvocation(MethodInvocation invocation) {
		this.start = AttemptInvoker.start(invocation);
	}

	/**
	 * {@return whether the template's async calls hedge now, so that their copies may run at the same time}
	 * @param template the method's template
	 */
	static boolean hedgesAsync(RetryTemplate template) {
		return template.getConfig().isHedging();
	}

	/**
	 * {@return whether the template's blocking calls hedge now: it hedges and has an executor for the copies}
	 * @param template the method's template
	 */
	static boolean hedgesBlocking(RetryTemplate template) {
		// isHedging() first: a call that does not hedge then never calls a method returning HedgingConfig,
		// a class an application without hedging never loads, and which the JIT cannot inline before it is.
		RetryConfig config = template.getConfig();
		if (!config.isHedging()) {
			return false;
		}
		HedgingConfig hedging = config.getHedging();
		return hedging != null && hedging.getExecutor() != null;
	}

	/**
	 * Refuses to run a copy after the first of a hedged call on the invocation that the call's copies would
	 * share: a call prepared as not hedging ({@link #hedgesAsync}, {@link #hedgesBlocking} said no) whose
	 * instance a live change made hedge before the engine read its configuration. Such a copy fails (and
	 * counts as a failed copy) instead of running the chain from a position another thread is using; the
	 * call goes on with its first copy. Nothing is refused for a call that does not hedge.
	 * @param context the attempt's context
	 * @throws IllegalStateException if the context is a hedge's
	 */
	static void refuseHedgeOnSharedInvocation(@Nullable RetryContext context) {
		if (context != null && Boolean.TRUE.equals(context.getAttribute(HEDGED))) {
			throw new IllegalStateException("Retry '" + context.getName() + "' started hedging (a live change) while"
					+ " this call was starting without it, so its copies would share one invocation: copy "
					+ (context.getRetryCount() + 1) + " is not sent, and the call goes on with the copies it has");
		}
	}

	/** {@return what each copy proceeds: the invocation, or a pristine clone ({@link AttemptInvoker#start})} */
	MethodInvocation start() {
		return this.start;
	}

}
