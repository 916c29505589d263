package dev.retrykit.spring.boot.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.retrykit.annotation.Recover;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.spi.RetryContextSnapshot.RecordedFailure;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The {@link Recover} methods that fit one {@code @Retryable} method, resolved once at startup, and the
 * choice among them for a failure: the one whose leading {@code Throwable} parameter is the closest
 * supertype of the failure; one without a {@code Throwable} parameter fits any failure. Immutable and
 * thread-safe.
 *
 * <p>Kotlin: methods are matched by their {@linkplain DeclaredSignature declared signature}, without
 * the {@code Continuation} of a {@code suspend fun}. A {@code suspend} recover method fits a
 * {@code suspend} retried method only, and is called as Spring AOP calls one (its result is a cold
 * publisher); a plain recover method also fits a {@code suspend} retried method (its value is the result).
 */
final class RecoverMethods {

	private final Method[] methods;

	private final @Nullable UnaryOperator<@Nullable Object> results;

	private RecoverMethods(Method[] methods, @Nullable UnaryOperator<@Nullable Object> results) {
		this.methods = methods;
		this.results = results;
	}

	/**
	 * @param adapter turns a recover method's result into what the retried method's variant expects
	 * (e.g. a Kotlin {@code Flow} into a {@code Flux})
	 * @return these recover methods, with their results adapted
	 */
	RecoverMethods adaptingResults(UnaryOperator<@Nullable Object> adapter) {
		return new RecoverMethods(this.methods, adapter);
	}

	/**
	 * @param retryable the {@code @Retryable} method
	 * @param userClass the bean's class
	 * @param name the {@code recover} attribute, or empty
	 * @return the fitting recover methods, or {@code null} when there are none (and none was named) or the
	 * method says it has none ({@link Retryable#NO_RECOVERY})
	 * @throws RetryableMethodException if a named recover method is missing or does not fit, or two fit
	 * equally well
	 */
	static @Nullable RecoverMethods resolve(Method retryable, Class<?> userClass, String name) {
		if (Retryable.NO_RECOVERY.equals(name)) {
			return null;
		}
		List<Method> candidates = new ArrayList<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (AnnotatedElementUtils.hasAnnotation(method, Recover.class)) {
				candidates.add(method);
			}
		}
		List<Method> named = candidates.stream().filter(method -> name.isEmpty() || method.getName().equals(name)).toList();
		List<Method> fitting = named.stream().filter(method -> mismatch(method, retryable, userClass) == null).toList();
		if (!name.isEmpty() && fitting.isEmpty()) {
			String problem = named.isEmpty() ? "no @Recover method named '" + name + "' exists in " + userClass.getName()
					: "the @Recover method(s) named '" + name + "' do not fit it: " + signatures(named) + ": "
							+ String.join("; ", named.stream().map(method -> mismatch(method, retryable, userClass)).toList());
			throw new RetryableMethodException(retryable, problem, "Set recover to the name of a @Recover method "
					+ "that returns " + typeName(ResolvableType.forMethodReturnType(retryable, userClass)) + " and takes an optional leading "
					+ "Throwable followed by the method's parameters " + Arrays.toString(simpleNames(retryable))
					+ "; candidates: " + signatures(candidates) + ".", null);
		}
		for (int i = 0; i < fitting.size(); i++) {
			for (int j = i + 1; j < fitting.size(); j++) {
				if (failureType(fitting.get(i)) == failureType(fitting.get(j))) {
					throw new RetryableMethodException(retryable, "recover methods " + signatures(List.of(fitting.get(i),
							fitting.get(j))) + " fit it equally well", "Remove one of them, make their Throwable "
									+ "parameters differ, or pick one with @Retryable(recover = \"...\"); candidates: "
									+ signatures(fitting) + ".", null);
				}
			}
		}
		if (fitting.isEmpty()) {
			return null;
		}
		List<Method> sorted = new ArrayList<>(fitting);
		sorted.sort(Comparator.comparingInt(method -> -depth(failureType(method))));
		sorted.forEach(ReflectionUtils::makeAccessible);
		return new RecoverMethods(sorted.toArray(new Method[0]), null);
	}

	/**
	 * Fails when a {@link Recover} method of the class fits none of its {@code @Retryable} methods: such a
	 * method would never be called, and the user believes the calls are recovered.
	 * @param userClass the bean's class
	 * @param retryables the class's {@code @Retryable} methods that may be recovered (not {@code @Failback} ones,
	 * which never recover, nor those with {@code recover = Retryable.NO_RECOVERY})
	 * @throws RetryableMethodException naming the recover method and why it fits each retryable method not
	 */
	static void checkEveryRecoverFits(Class<?> userClass, List<Method> retryables) {
		for (Method recover : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (!AnnotatedElementUtils.hasAnnotation(recover, Recover.class)) {
				continue;
			}
			List<String> mismatches = new ArrayList<>();
			for (Method retryable : retryables) {
				String mismatch = mismatch(recover, retryable, userClass);
				if (mismatch == null) {
					mismatches = null;
					break;
				}
				mismatches.add(describe(retryable) + ": " + mismatch);
			}
			if (mismatches != null) {
				String none = " (the class has none but those with recover = Retryable.NO_RECOVERY)";
				throw new RetryableMethodException("@Recover", recover, "it fits no @Retryable method of its class, so it "
						+ "would never be called" + (mismatches.isEmpty() ? none : ": " + String.join("; ", mismatches)),
						"Make it return what the @Retryable method returns and take an optional leading Throwable "
								+ "followed by all or none of that method's parameters, name it with "
								+ "@Retryable(recover = \"" + recover.getName() + "\") to be told what does not fit, or remove it.",
						null);
			}
		}
	}

	/**
	 * Calls the recover method that fits the failure best, on the invocation's bean with its arguments.
	 * @param invocation the intercepted call
	 * @param failure the failure the call ended with, or {@code null} (a rejected result)
	 * @return the recover method's result
	 * @throws Exception the failure itself when no recover method accepts it, or the recover method's failure
	 */
	@Nullable Object recover(MethodInvocation invocation, @Nullable Throwable failure) throws Exception {
		Object target = invocation.getThis();
		if (target == null) {
			throw new IllegalStateException("No target to call a @Recover method on for " + invocation.getMethod());
		}
		return recover(target, failure, invocation.getArguments());
	}

	/**
	 * Calls the recover method that fits the failure best.
	 * @param target the bean
	 * @param failure the failure the call ended with, or {@code null} (a rejected result)
	 * @param arguments the call's arguments
	 * @return the recover method's result
	 * @throws Exception the failure itself when no recover method accepts it, or the recover method's failure
	 */
	@Nullable Object recover(Object target, @Nullable Throwable failure, @Nullable Object[] arguments) throws Exception {
		// Sorted most specific first, so the first that accepts the failure is the closest supertype.
		for (Method method : this.methods) {
			Class<?> type = failureType(method);
			Throwable fitting = (type == null || failure == null) ? failure : fitting(type, failure);
			if (type == null || fitting != null) {
				Object result = invoke(method, target, fitting, arguments);
				return (this.results != null) ? this.results.apply(result) : result;
			}
		}
		if (failure != null) {
			throw rethrow(failure);
		}
		return null;
	}

	/**
	 * The failure as a recover method that takes {@code type} receives it: itself when it is one; for a
	 * failure a shared context recorded in another JVM, decided by the type it records (as the in-memory
	 * cache decides by the original), an instance of {@code type} itself, the parameter type the
	 * application declared, made with the recorded message through its public {@code (String)} or
	 * no-argument constructor, with the recorded failure (which names the recorded type) as its cause.
	 * The recorded type is named by the shared store, which anything that can write to it may have
	 * forged: it is looked up without being initialised, only to compare it with {@code type}, and never
	 * instantiated, so that no static initialiser of a class the application would not otherwise load
	 * runs. With recover methods for a type and its subtype, the closest one is still chosen.
	 * @return the value to pass, or {@code null} if the method does not take this failure
	 */
	static @Nullable Throwable fitting(Class<?> type, Throwable failure) {
		if (type.isInstance(failure)) {
			return failure;
		}
		if (!(failure instanceof RecordedFailure recorded) || !RecordedFailure.isInstance(type, recorded)
				|| Modifier.isAbstract(type.getModifiers())) {
			return null;
		}
		try {
			Throwable made;
			try {
				made = (Throwable) type.getConstructor(String.class).newInstance(recorded.getOriginalMessage());
			}
			catch (NoSuchMethodException ex) {
				made = (Throwable) type.getConstructor().newInstance();
			}
			if (made.getCause() == null) {
				made.initCause(recorded);
			}
			return made;
		}
		catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
			return null;
		}
	}

	/** Rethrows as is: Exceptions and Errors unchanged, any other Throwable wrapped. */
	static Exception rethrow(Throwable failure) {
		if (failure instanceof Exception exception) {
			return exception;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		return new java.lang.reflect.UndeclaredThrowableException(failure);
	}

	private static @Nullable Object invoke(Method method, Object target, @Nullable Throwable failure,
			@Nullable Object[] arguments) throws Exception {
		boolean suspending = DeclaredSignature.isSuspending(method);
		int count = suspending ? method.getParameterCount() - 1 : method.getParameterCount();
		boolean withFailure = failureType(method) != null;
		@Nullable Object[] values = new Object[count];
		int offset = withFailure ? 1 : 0;
		if (withFailure) {
			values[0] = failure;
		}
		if (count > offset) {
			System.arraycopy(arguments, 0, values, offset, count - offset);
		}
		if (suspending) {
			// Never with the caller's Continuation: the recover method runs as a coroutine of its own.
			return KotlinCoroutines.invokeSuspending(method, target, values, arguments[arguments.length - 1]);
		}
		try {
			return method.invoke(target, values);
		}
		catch (InvocationTargetException ex) {
			throw rethrow(ex.getTargetException());
		}
	}

	/**
	 * What keeps a recover method from fitting a retryable method, or {@code null} when it fits. Generic types
	 * are compared as declared in the bean's class ({@code Map<String, String>} is not {@code Map<String, Integer>}).
	 */
	static @Nullable String mismatch(Method recover, Method retryable, Class<?> userClass) {
		ResolvableType expected = ResolvableType.forMethodReturnType(retryable, userClass);
		ResolvableType actual = ResolvableType.forMethodReturnType(recover, userClass);
		if (!assignable(expected, actual)
				|| (DeclaredSignature.returnType(retryable) == void.class) != (DeclaredSignature.returnType(recover) == void.class)) {
			return describe(recover) + " returns " + typeName(actual) + ", not " + typeName(expected);
		}
		if (DeclaredSignature.isSuspending(recover) && !DeclaredSignature.isSuspending(retryable)) {
			return describe(recover) + " is a suspend function, but " + retryable.getName() + " is not";
		}
		int offset = (failureType(recover) != null) ? 1 : 0;
		int rest = DeclaredSignature.parameterTypes(recover).length - offset;
		if (rest == 0) {
			return null;
		}
		boolean fit = rest == DeclaredSignature.parameterTypes(retryable).length;
		for (int i = 0; fit && i < rest; i++) {
			fit = assignable(ResolvableType.forMethodParameter(recover, i + offset, userClass),
					ResolvableType.forMethodParameter(retryable, i, userClass));
		}
		return fit ? null : describe(recover) + " has the parameters " + parameterNames(recover, offset, userClass)
				+ " after its optional Throwable, but " + retryable.getName() + " takes "
				+ parameterNames(retryable, 0, userClass) + " (a recover method takes all of them, or none)";
	}

	/** Raw types by {@link ClassUtils#isAssignable} (boxing allowed), then generics where the target declares them. */
	private static boolean assignable(ResolvableType target, ResolvableType value) {
		Class<?> targetClass = target.toClass();
		Class<?> valueClass = value.toClass();
		if (!ClassUtils.isAssignable(targetClass, valueClass)) {
			return false;
		}
		return !target.hasGenerics() || target.isAssignableFrom(value);
	}

	private static String typeName(ResolvableType type) {
		return type.hasGenerics() ? type.toString().replaceAll("\\b[a-z][\\w$]*\\.", "")
				: type.toClass().getSimpleName();
	}

	private static String parameterNames(Method method, int offset, Class<?> userClass) {
		StringBuilder names = new StringBuilder("[");
		for (int i = offset; i < DeclaredSignature.parameterTypes(method).length; i++) {
			names.append((i > offset) ? ", " : "").append(typeName(ResolvableType.forMethodParameter(method, i, userClass)));
		}
		return names.append(']').toString();
	}

	private static String describe(Method method) {
		return method.getName() + "(" + String.join(", ", simpleNames(method)) + ")";
	}

	private static @Nullable Class<?> failureType(Method method) {
		Class<?>[] parameters = method.getParameterTypes();
		return (parameters.length > 0 && Throwable.class.isAssignableFrom(parameters[0])) ? parameters[0] : null;
	}

	/** Depth in the class hierarchy: deeper means more specific; no Throwable parameter sorts last. */
	private static int depth(@Nullable Class<?> type) {
		int depth = 0;
		for (Class<?> current = type; current != null; current = current.getSuperclass()) {
			depth++;
		}
		return depth;
	}

	private static String signatures(List<Method> methods) {
		return methods.stream().map(method -> method.getName() + Arrays.toString(simpleNames(method))).toList().toString();
	}

	private static String[] simpleNames(Method method) {
		return Arrays.stream(DeclaredSignature.parameterTypes(method)).map(Class::getSimpleName).toArray(String[]::new);
	}

}
