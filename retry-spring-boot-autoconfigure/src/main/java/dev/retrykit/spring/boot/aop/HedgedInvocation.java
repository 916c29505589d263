package dev.retrykit.spring.boot.aop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;

import dev.retrykit.RetryConfig;
import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryTemplate;
import dev.retrykit.hedging.HedgingConfig;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ReflectiveMethodInvocation;

/**
 * Runs the copies of one hedged call of a method, each through the whole rest of the interceptor chain.
 *
 * <p>{@link AttemptInvoker} runs attempts one after another on the one invocation, setting its position
 * in the chain back each time. Copies of a hedged call run at the same time (a hedge while the first
 * copy is inside the chain, a copy started by a failure while a hedge is), so sharing that position
 * would make one copy skip the interceptors another has passed (an inner {@code @Transactional} left
 * out). So the first copy runs on the invocation as {@link AttemptInvoker} does, and every copy after it
 * (by {@link dev.retrykit.RetryTemplate#currentContext()}'s retry count) proceeds on an
 * {@linkplain ProxyMethodInvocation#invocableClone() invocable clone} of a pristine clone taken on
 * entry, before the first copy could move anything. The pristine clone, and each copy's clone, get a
 * map of user attributes of their own (a clone shares its origin's, which the first copy may change
 * meanwhile), without the AspectJ join point cached there: it is bound to the invocation it was made for
 * and would proceed from that one's position. Only calls of a hedging
 * instance pay for the pristine clone. Thread-safe once made; one per call.
 */
final class HedgedInvocation {

	/** The key under which Spring's AspectJ advice caches its join point in the user attributes. */
	private static final String JOIN_POINT_KEY = "org.aspectj.lang.JoinPoint";

	/** The attribute that tells a copy after the first of a hedged call that it is a hedge. */
	private static final String HEDGED = "retry.hedged";

	private static final @Nullable VarHandle USER_ATTRIBUTES = findUserAttributes();

	private final MethodInvocation invocation;

	private final int mark;

	private final @Nullable ProxyMethodInvocation pristine;

	/**
	 * Takes the pristine clone; call on entry to the retry interceptor, before the first copy runs.
	 * @param invocation the invocation as the retry interceptor received it
	 */
	HedgedInvocation(MethodInvocation invocation) {
		this.invocation = invocation;
		this.mark = AttemptInvoker.mark(invocation);
		ProxyMethodInvocation pristine = null;
		if (invocation instanceof ProxyMethodInvocation proxy) {
			pristine = (ProxyMethodInvocation) proxy.invocableClone();
			// Copied now, while only this thread uses the invocation: the first copy may change the shared map later.
			ownUserAttributes(pristine);
		}
		this.pristine = pristine;
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

	/**
	 * Runs one copy: the interceptors after the retry interceptor, then the target.
	 * @return the copy's result
	 * @throws Throwable the copy's failure
	 */
	@Nullable Object proceed() throws Throwable {
		RetryContext context = RetryTemplate.currentContext();
		ProxyMethodInvocation origin = this.pristine;
		if (origin == null || context == null || context.getRetryCount() == 0) {
			return AttemptInvoker.proceed(this.invocation, this.mark);
		}
		MethodInvocation copy = origin.invocableClone();
		ownUserAttributes(copy);
		return copy.proceed();
	}

	private static void ownUserAttributes(MethodInvocation copy) {
		VarHandle field = USER_ATTRIBUTES;
		if (field != null && copy instanceof ReflectiveMethodInvocation reflective) {
			@SuppressWarnings("unchecked")
			Map<String, Object> shared = (Map<String, Object>) field.get(reflective);
			Map<String, Object> own = (shared != null) ? new HashMap<>(shared) : new HashMap<>();
			own.remove(JOIN_POINT_KEY);
			field.set(reflective, own);
		}
	}

	private static @Nullable VarHandle findUserAttributes() {
		try {
			return MethodHandles.privateLookupIn(ReflectiveMethodInvocation.class, MethodHandles.lookup())
				.findVarHandle(ReflectiveMethodInvocation.class, "userAttributes", Map.class);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return null;
		}
	}

}
