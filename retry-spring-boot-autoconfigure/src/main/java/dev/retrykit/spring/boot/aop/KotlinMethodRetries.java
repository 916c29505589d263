package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;

import dev.retrykit.RetryTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * Chooses the variant of a Kotlin {@code suspend fun} or of a method returning a {@code Flow}, and
 * refuses at startup what cannot work:
 * <ul>
 * <li>a {@code suspend fun} is retried by {@link SuspendMethodRetry}; one returning a {@code Flow} by
 * the {@code Flux} variant (Spring's proxy already hands it over as a {@code Flux} and turns the result
 * back into a {@code Flow});</li>
 * <li>a method returning {@code Flow} by {@link FlowMethodRetry}, around the {@code Flux} variant;</li>
 * <li>both need kotlinx-coroutines-reactor (through which Spring AOP runs suspend functions and adapts
 * {@code Flow}), and a suspend function kotlin-reflect; without them the method fails startup;</li>
 * <li>stateful retry is refused for them, as for every non-blocking method: a stateful call rethrows
 * each failure to its caller and keeps the count in the context cache, which core does for blocking
 * calls only;</li>
 * <li>on a hedging instance a {@code suspend fun} hedges (its copies are coroutines, and a losing one
 * is cancelled), while a {@code Flow} is refused, as a {@code Flux} is: two streams cannot be raced.</li>
 * </ul>
 * Needs no Kotlin class itself: in a Java application {@link #resolve} returns {@code null} after two
 * checks that load nothing of Kotlin. Stateless and thread-safe.
 */
final class KotlinMethodRetries {

	private static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			KotlinMethodRetries.class.getClassLoader())
			&& ClassUtils.isPresent("reactor.core.publisher.Mono", KotlinMethodRetries.class.getClassLoader());

	private static final String FLOW = "kotlinx.coroutines.flow.Flow";

	private KotlinMethodRetries() {
	}

	/**
	 * @param method a {@code @Failback} method
	 * @throws RetryableMethodException if it is a suspend function: no caller would await its background
	 * retries, and its coroutine context would be gone by then
	 */
	static void refuseFailback(Method method) {
		if (DeclaredSignature.isSuspending(method)) {
			throw new RetryableMethodException("@Failback", method, "it is a Kotlin suspend function, but a failback "
					+ "call returns at once and is retried in the background, where no coroutine awaits it",
					"Make it a plain (non-suspend) function returning Unit, or use @Retryable.", null);
		}
	}

	/**
	 * @param method the retried method
	 * @param template its template
	 * @param recover its recover methods, or {@code null}
	 * @param key its stateful key, or {@code null} when stateless
	 * @return the variant, or {@code null} when the method is neither suspending nor returns a {@code Flow}
	 * @throws RetryableMethodException if the method cannot be retried as declared
	 */
	static @Nullable MethodRetry resolve(Method method, RetryTemplate template, @Nullable RecoverMethods recover,
			@Nullable StatefulKey key) {
		boolean suspending = DeclaredSignature.isSuspending(method);
		if (!suspending && !method.getReturnType().getName().equals(FLOW)) {
			return null;
		}
		String kind = suspending ? "it is a Kotlin suspend function" : "it returns a Kotlin Flow";
		if (!COROUTINES_REACTOR_PRESENT || (suspending && !KotlinDetector.isKotlinReflectPresent())) {
			throw new RetryableMethodException(method, kind + ", and Spring AOP runs suspend functions and adapts "
					+ "Flow through kotlinx-coroutines-reactor" + (suspending ? " and kotlin-reflect" : "")
					+ ", which are not all on the classpath", "Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor"
							+ (suspending ? " and org.jetbrains.kotlin:kotlin-reflect" : "") + " to the application.", null);
		}
		if (key != null) {
			throw new RetryableMethodException(method, "stateful retry needs a synchronous method, but " + kind,
					"Remove stateful (or the instance's stateful property) for this method: a stateful call must "
							+ "rethrow each failure to its caller, which is supported for blocking methods only.", null);
		}
		Class<?> returnType = DeclaredSignature.returnType(method);
		if (!returnType.getName().equals(FLOW)) {
			return new SuspendMethodRetry(template, recover);
		}
		if (template.getConfig().isHedging()) {
			String property = "retry.instances." + template.getName() + ".hedging";
			throw new RetryableMethodException(method, "it returns a Kotlin Flow and its instance '" + template.getName()
					+ "' hedges: the elements of two copies of a stream cannot be raced",
					"Make it a suspend function returning the collected value (e.g. a List), or set '" + property
							+ ".enabled' to false.", null);
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
		if (adapter == null) {
			throw new IllegalStateException("Spring registered no ReactiveAdapter for " + returnType.getName()
					+ " although kotlinx-coroutines-reactor is present");
		}
		RecoverMethods recoverFlux = (recover != null)
				? recover.adaptingResults(result -> FlowMethodRetry.toFlux(adapter, result)) : null;
		MethodRetry flux = new ReactiveMethodRetry(template, recoverFlux);
		// Spring's proxy hands a suspend function's Flow to the chain as a Flux and adapts the result back.
		return suspending ? flux : new FlowMethodRetry(adapter, flux);
	}

}
