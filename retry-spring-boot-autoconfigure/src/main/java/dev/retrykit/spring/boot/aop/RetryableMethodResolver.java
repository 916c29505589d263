package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryListener;
import dev.retrykit.RetryRegistry;
import dev.retrykit.RetryTemplate;
import dev.retrykit.annotation.Failback;
import dev.retrykit.annotation.Retryable;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.util.ClassUtils;

/**
 * Resolves everything a retried method needs, once per method: the instance (the annotation's name,
 * {@code SimpleClassName.method}, or a target's instance), the failback executor of a {@code @Failback} method, a per-method template when the annotation
 * overrides settings, the recover methods, the stateful key, and the variant for its return type.
 * Invalid declarations fail with a {@link RetryableMethodException}. Thread-safe.
 *
 * <p>A method with inline overrides runs on a {@linkplain RetryTemplate#variant variant} of its
 * instance's template, built once from the instance's config with the overrides applied. The variant
 * is otherwise the same instance: same name, metrics and recent events, listeners, sleeper, clock,
 * scheduler, circuit breaker, budget and context cache, so its calls are counted in the instance's
 * metrics.
 */
public final class RetryableMethodResolver {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			RetryableMethodResolver.class.getClassLoader());

	private final RetryRegistry registry;

	private final SpelExpressionParser parser = new SpelExpressionParser();

	/** Resolves {@code @beanName} in the annotations' SpEL (as Spring Retry does), or {@code null} without a bean factory. */
	private final @Nullable BeanResolver beans;

	private final @Nullable BeanFactory beanFactory;

	private final @Nullable MethodListeners listeners;

	/** Whether stateful contexts are shared by the replicas in their keys' {@code toString()} form. */
	private final boolean sharedKeys;

	/** The context of every {@code exceptionExpression}: built once, with the bean resolver. */
	private final StandardEvaluationContext exceptionContext = new StandardEvaluationContext();

	/**
	 * @param registry the instances; a method with inline attributes runs on a
	 * {@linkplain RetryTemplate#variant variant} of its instance, so its calls count as the instance's;
	 * an instance whose config is stateful makes its methods stateful by default
	 */
	public RetryableMethodResolver(RetryRegistry registry) {
		this(registry, null);
	}

	/**
	 * @param registry the instances, as for {@link #RetryableMethodResolver(RetryRegistry)}
	 * @param beanFactory the beans that the annotations' SpEL expressions ({@code key}, {@code exceptionExpression},
	 * {@code @Failback}'s {@code key}) may call as {@code @beanName}, or {@code null} for none
	 */
	public RetryableMethodResolver(RetryRegistry registry, @Nullable BeanFactory beanFactory) {
		this(registry, beanFactory, null);
	}

	/**
	 * @param registry the instances, as for {@link #RetryableMethodResolver(RetryRegistry)}
	 * @param beanFactory the beans of SpEL expressions and of {@code @Retryable(listeners = ...)}, or {@code null}
	 * @param listeners the application's listeners, told of each method's calls (the global ones, or those the
	 * method names); {@code null} when they are not registered on the instances, where naming listeners fails
	 */
	public RetryableMethodResolver(RetryRegistry registry, @Nullable BeanFactory beanFactory,
			@Nullable MethodListeners listeners) {
		this(registry, beanFactory, listeners, false);
	}

	/**
	 * @param registry the instances, as for {@link #RetryableMethodResolver(RetryRegistry)}
	 * @param beanFactory the beans of SpEL expressions and of {@code @Retryable(listeners = ...)}, or {@code null}
	 * @param listeners the application's listeners, as for {@link #RetryableMethodResolver(RetryRegistry, BeanFactory, MethodListeners)}
	 * @param sharedKeys whether the replicas share stateful contexts by key ({@code retry.cluster.enabled}): a
	 * stateful method's default key then fails resolution when a parameter type has no value-based
	 * {@code toString()}, or is logged when its arguments' classes decide
	 */
	public RetryableMethodResolver(RetryRegistry registry, @Nullable BeanFactory beanFactory,
			@Nullable MethodListeners listeners, boolean sharedKeys) {
		this.sharedKeys = sharedKeys;
		this.registry = registry;
		this.beanFactory = beanFactory;
		this.listeners = listeners;
		this.beans = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
		if (this.beans != null) {
			this.exceptionContext.setBeanResolver(this.beans);
		}
	}

	/**
	 * @param method the invoked method
	 * @param targetClass the bean's class
	 * @return how to retry the method; {@link MethodRetry#PROCEED} when it has no {@code @Retryable}
	 * @throws RetryableMethodException if the declaration is invalid
	 */
	MethodRetry resolve(Method method, Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		Method specific = AopUtils.getMostSpecificMethod(method, userClass);
		Failback failback = RetryableAnnotations.findFailback(specific);
		Retryable retryable = RetryableAnnotations.find(specific, userClass);
		if (failback != null) {
			return failback(failback, retryable, specific);
		}
		if (retryable == null) {
			return MethodRetry.PROCEED;
		}
		String name = instanceName(retryable, specific, userClass);
		RetryTemplate instance = this.registry.template(name);
		RetryTemplate template = listening(template(instance, retryable, specific), specific, retryable.listeners());
		RecoverMethods recover = RecoverMethods.resolve(specific, userClass, retryable.recover());
		boolean stateful = retryable.stateful() || instance.getConfig().isStateful();
		if (stateful && this.sharedKeys && retryable.key().isEmpty()) {
			SharedKeyArguments.check(specific);
		}
		return variant(specific, template, recover,
				stateful ? new StatefulKey(specific, key(retryable.key(), specific), this.beans) : null,
				isHeard(retryable.listeners()));
	}

	/**
	 * The template whose listeners hear the method's calls: its instance's (the global listeners), or a
	 * variant told to the listeners the method names instead.
	 */
	private RetryTemplate listening(RetryTemplate template, Method method, String[] names) {
		if (names.length == 0) {
			return template;
		}
		if (this.listeners == null) {
			throw new RetryableMethodException(method, "it names listeners " + Arrays.toString(names) + ", but "
					+ "the retry registry is the application's own, which does not use the RetryListener beans",
					"Remove listeners from this @Retryable, or let the starter define the RetryRegistry bean.", null);
		}
		return template.withListeners(Arrays.asList(chosenListeners(method, names)));
	}

	/**
	 * Whether a method's calls may have listeners, which then learn its invocation (a synchronous call pays
	 * for that with an object per call, so methods that nobody listens to do not); unknown, so true, with
	 * the application's own registry.
	 */
	private boolean isHeard(String[] names) {
		if (names.length > 0) {
			return !(names.length == 1 && names[0].isEmpty());
		}
		return this.listeners == null || this.listeners.hasGlobalListeners();
	}

	private RetryListener[] chosenListeners(Method method, String[] names) {
		if (names.length == 1 && names[0].isEmpty()) {
			return new RetryListener[0];
		}
		RetryListener[] chosen = new RetryListener[names.length];
		for (int i = 0; i < names.length; i++) {
			String name = names[i];
			if (this.beanFactory == null || !this.beanFactory.containsBean(name)
					|| !this.beanFactory.isTypeMatch(name, RetryListener.class)) {
				String[] candidates = (this.beanFactory instanceof ListableBeanFactory listable)
						? listable.getBeanNamesForType(RetryListener.class) : new String[0];
				throw new RetryableMethodException(method, "its listeners name '" + name + "', but no RetryListener bean "
						+ "has that name", "Set listeners to names of RetryListener beans; candidates: "
								+ Arrays.toString(candidates) + " (or listeners = \"\" for none).", null);
			}
			chosen[i] = this.beanFactory.getBean(name, RetryListener.class);
		}
		return chosen;
	}

	private MethodRetry failback(Failback failback, @Nullable Retryable retryable, Method method) {
		if (retryable != null && AnnotatedElementUtils.hasAnnotation(method, Retryable.class)) {
			throw new RetryableMethodException("@Failback", method, "it is also annotated with @Retryable",
					"Keep one of @Retryable (retry while the caller waits) and @Failback (retry in the background).", null);
		}
		KotlinMethodRetries.refuseFailback(method);
		if (method.getReturnType() != void.class) {
			throw new RetryableMethodException("@Failback", method, "it returns " + method.getReturnType().getSimpleName()
					+ ", but a failback call returns at once, before any retry", "Make the method void.", null);
		}
		if (failback.value().isBlank()) {
			throw new RetryableMethodException("@Failback", method, "it names no instance",
					"Set @Failback(\"<instance>\") to the instance whose policy retries it.", null);
		}
		return new FailbackMethodRetry(this.registry.failback(failback.value()),
				new StatefulKey(method, key(failback.key(), method), this.beans));
	}

	/**
	 * How a {@code retry.targets} instance retries a method that carries no {@code @Retryable} (one that
	 * does is left to the annotation advisor).
	 * @param method the invoked method
	 * @param targetClass the bean's class
	 * @param instance the target's instance name
	 * @return how to retry the method
	 */
	MethodRetry resolveTarget(Method method, Class<?> targetClass, String instance) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		Method specific = AopUtils.getMostSpecificMethod(method, userClass);
		if (RetryableAnnotations.isAnnotated(specific, userClass)) {
			return MethodRetry.PROCEED;
		}
		return variant(specific, this.registry.template(instance), null, null, isHeard(new String[0]));
	}

	private MethodRetry variant(Method method, RetryTemplate template, @Nullable RecoverMethods recover,
			@Nullable StatefulKey key, boolean heard) {
		MethodRetry kotlin = KotlinMethodRetries.resolve(method, template, recover, key);
		if (kotlin != null) {
			return kotlin;
		}
		Class<?> returnType = method.getReturnType();
		boolean async = CompletionStage.class.isAssignableFrom(returnType);
		boolean reactive = REACTOR_PRESENT && ReactiveTypes.isReactive(returnType);
		if ((async || reactive) && key != null) {
			throw new RetryableMethodException(method, "stateful retry needs a synchronous method, but it returns "
					+ returnType.getSimpleName(), "Remove stateful (or the instance's stateful property) for this method.", null);
		}
		if (template.getConfig().isHedging()) {
			checkHedging(method, template, returnType, async, reactive, key != null);
		}
		if (async) {
			if (!returnType.isAssignableFrom(CompletableFuture.class)) {
				throw new RetryableMethodException(method, "its return type " + returnType.getName()
						+ " is not supported", "Declare the method to return CompletionStage or CompletableFuture.", null);
			}
			return new AsyncMethodRetry(template, recover);
		}
		if (reactive) {
			return new ReactiveMethodRetry(template, recover);
		}
		return new SyncMethodRetry(template, recover, key, heard);
	}

	/**
	 * What cannot hedge fails at startup: a stateful method (one attempt per call, rethrown), a
	 * {@code Flux} (its elements cannot be raced), and a blocking method whose instance has no
	 * {@code hedging.executor} (its copies need an executor's threads). A {@code Mono} hedges:
	 * retry-reactor's operator races its subscriptions.
	 */
	private static void checkHedging(Method method, RetryTemplate template, Class<?> returnType, boolean async,
			boolean reactive, boolean stateful) {
		String property = "retry.instances." + template.getName() + ".hedging";
		if (stateful) {
			throw new RetryableMethodException(method, "it is stateful and its instance '" + template.getName()
					+ "' hedges: a stateful call runs one attempt and rethrows its failure, so it has nothing to race",
					"Remove stateful for this method, or set '" + property + ".enabled' to false.", null);
		}
		if (reactive && ReactiveTypes.isFlux(returnType)) {
			throw new RetryableMethodException(method, "it returns a Flux and its instance '" + template.getName()
					+ "' hedges: the elements of two copies of a stream cannot be raced",
					"Return Mono (e.g. of the collected list), CompletableFuture or CompletionStage, or set '"
							+ property + ".enabled' to false.", null);
		}
		if (!async && !reactive && !HedgedInvocation.hedgesBlocking(template)) {
			throw new RetryableMethodException(method, "it is blocking (returns " + returnType.getSimpleName()
					+ ") and its instance '" + template.getName() + "' hedges: a blocking method hedges only with '"
					+ property + ".executor' naming an Executor bean to run its copies, and none is set",
					"Set '" + property + ".executor' to the name of an Executor bean (one with a thread per task, such as"
							+ " virtual threads, or enough threads for every copy), return CompletableFuture or"
							+ " CompletionStage, or set '" + property + ".enabled' to false.", null);
		}
	}

	private static String instanceName(Retryable retryable, Method method, Class<?> userClass) {
		if (!retryable.value().isEmpty() && !retryable.name().isEmpty() && !retryable.value().equals(retryable.name())) {
			throw new RetryableMethodException(method, "value ('" + retryable.value() + "') and name ('"
					+ retryable.name() + "') differ", "Set only one of value and name.", null);
		}
		String name = retryable.value().isEmpty() ? retryable.name() : retryable.value();
		return name.isEmpty() ? userClass.getSimpleName() + "." + method.getName() : name;
	}

	private RetryTemplate template(RetryTemplate instance, Retryable retryable, Method method) {
		if (InlineOverrides.apply(instance.getConfig(), retryable, method, this.parser, this.exceptionContext) == null) {
			return instance;
		}
		// A following variant: a live change of the instance (RetryRegistry.replace) re-derives the method's
		// configuration from the instance's new one.
		return instance.variant(base -> {
			RetryConfig config = InlineOverrides.apply(base, retryable, method, this.parser, this.exceptionContext);
			return (config != null) ? config : base;
		});
	}


	private org.springframework.expression.@Nullable Expression key(String key, Method method) {
		if (key.isEmpty()) {
			return null;
		}
		try {
			return this.parser.parseExpression(key);
		}
		catch (ParseException ex) {
			throw new RetryableMethodException(method, "its key expression '" + key + "' is not valid SpEL: "
					+ ex.getMessage(), "Fix the key expression, e.g. key = \"#order.id\" or \"#p0\".", ex);
		}
	}

}
