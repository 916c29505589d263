package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.openrewrite.Cursor;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.Statement;
import org.openrewrite.java.tree.TypeUtils;

/**
 * What to do with the Resilience4j {@code @Retry} and {@code @CircuitBreaker} annotations of one class: the
 * retrykit {@code @Retryable} that replaces each (by annotation id), the annotations that go (a method's second one),
 * the fallback methods that become {@code @Recover} methods, or what cannot be mapped. In a class with recover methods,
 * a method that had no fallback gets {@code recover = Retryable.NO_RECOVERY}, so that it keeps none.
 */
final class Resilience4jClassPlan {

	static final String RETRY = "io.github.resilience4j.retry.annotation.Retry";

	static final String CIRCUIT_BREAKER = "io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker";

	private static final String RECOVER = "dev.retrykit.annotation.Recover";

	final Map<UUID, String> replacements = new HashMap<>();

	final Set<UUID> removals = new HashSet<>();

	final Set<UUID> fallbacks = new HashSet<>();

	final Map<String, String> unmapped = new LinkedHashMap<>();

	/** The {@code @Retryable}s (by the id of the annotation they replace) of methods that had no fallback. */
	private final Set<UUID> withoutFallback = new HashSet<>();

	static Resilience4jClassPlan of(J.ClassDeclaration classDeclaration, Cursor cursor) {
		Resilience4jClassPlan plan = new Resilience4jClassPlan();
		List<J.MethodDeclaration> methods = new ArrayList<>();
		for (Statement statement : classDeclaration.getBody().getStatements()) {
			if (statement instanceof J.MethodDeclaration method) {
				methods.add(method);
			}
		}
		plan.add(classDeclaration.getLeadingAnnotations(), null, methods, cursor, "the type");
		for (J.MethodDeclaration method : methods) {
			plan.add(method.getLeadingAnnotations(), method, methods, cursor, classDeclaration.getSimpleName() + "." + method.getSimpleName());
		}
		if (!plan.fallbacks.isEmpty() || methods.stream().anyMatch(Resilience4jClassPlan::isRecover)) {
			// A @Recover method applies to every @Retryable of its class that names none (Spring Retry's rule, kept by
			// retrykit); a method that had no fallback says so, to keep none.
			for (UUID id : plan.withoutFallback) {
				plan.replacements.computeIfPresent(id, (key, text) -> text.substring(0, text.length() - 1) + ", recover = "
						+ SpringRetryAnnotationMapping.RETRYABLE + ".NO_RECOVERY)");
			}
		}
		return plan;
	}

	private static boolean isRecover(J.MethodDeclaration method) {
		return method.getLeadingAnnotations().stream().anyMatch((a) -> TypeUtils.isOfClassType(a.getType(), RECOVER));
	}

	boolean isEmpty() {
		return this.replacements.isEmpty() && this.unmapped.isEmpty();
	}

	private void add(List<J.Annotation> annotations, J.@Nullable MethodDeclaration method, List<J.MethodDeclaration> methods,
			Cursor cursor, String element) {
		J.Annotation retry = null;
		J.Annotation breaker = null;
		for (J.Annotation annotation : annotations) {
			if (TypeUtils.isOfClassType(annotation.getType(), RETRY)) {
				retry = annotation;
			}
			else if (TypeUtils.isOfClassType(annotation.getType(), CIRCUIT_BREAKER)) {
				breaker = annotation;
			}
		}
		if (retry == null && breaker == null) {
			return;
		}
		AnnotationArguments retryArguments = (retry != null) ? AnnotationArguments.of(retry, (e) -> e.printTrimmed(cursor)) : null;
		AnnotationArguments breakerArguments = (breaker != null) ? AnnotationArguments.of(breaker, (e) -> e.printTrimmed(cursor)) : null;
		for (AnnotationArguments arguments : new AnnotationArguments[] { retryArguments, breakerArguments }) {
			if (arguments != null && !Set.of("name", "fallbackMethod").containsAll(arguments.names())) {
				this.unmapped.put(element, "attributes other than name and fallbackMethod have no retrykit equivalent");
				return;
			}
		}
		String name = literal(retryArguments, "name");
		String breakerName = literal(breakerArguments, "name");
		if (name != null && breakerName != null && !name.equals(breakerName)) {
			this.unmapped.put(element, "@Retry(name = \"" + name + "\") and @CircuitBreaker(name = \"" + breakerName
					+ "\") differ; a retrykit instance has one name for its retry and its breaker");
			return;
		}
		name = (name != null) ? name : breakerName;
		String fallback = literal(retryArguments, "fallbackMethod");
		String breakerFallback = literal(breakerArguments, "fallbackMethod");
		if (fallback != null && breakerFallback != null && !fallback.equals(breakerFallback)) {
			this.unmapped.put(element, "@Retry and @CircuitBreaker name different fallback methods; retrykit recovers once");
			return;
		}
		fallback = (fallback != null) ? fallback : breakerFallback;
		if (name == null) {
			this.unmapped.put(element, "the instance name is not a string literal");
			return;
		}
		if (fallback != null) {
			if (method == null) {
				this.unmapped.put(element, "a fallbackMethod on a type has no retrykit equivalent; put @Recover methods in the class");
				return;
			}
			String misfit = fallbacks(method, fallback, methods);
			if (misfit != null) {
				this.unmapped.put(element, misfit);
				return;
			}
		}
		List<String> attributes = new ArrayList<>();
		attributes.add("value = " + SpringRetryAnnotationMapping.quote(name));
		if (retry == null) {
			// A Resilience4j breaker alone calls the method once; retrykit's instance would retry.
			attributes.add("maxAttempts = 1");
		}
		if (fallback != null) {
			attributes.add("recover = " + SpringRetryAnnotationMapping.quote(fallback));
		}
		// One of the two is there: checked at the top.
		J.Annotation primary = (retry != null) ? retry : Objects.requireNonNull(breaker);
		if (fallback == null) {
			this.withoutFallback.add(primary.getId());
		}
		this.replacements.put(primary.getId(), "@" + SpringRetryAnnotationMapping.RETRYABLE + "(" + String.join(", ", attributes) + ")");
		if (retry != null && breaker != null) {
			this.removals.add(breaker.getId());
		}
	}

	/** @return null when every method named {@code fallback} fits as a recover method (and records them), else why not */
	private @Nullable String fallbacks(J.MethodDeclaration method, String fallback, List<J.MethodDeclaration> methods) {
		List<J.MethodDeclaration> candidates = methods.stream().filter((m) -> m.getSimpleName().equals(fallback)).toList();
		if (candidates.isEmpty()) {
			return "fallback method " + fallback + " is not declared in the class";
		}
		for (J.MethodDeclaration candidate : candidates) {
			if (!fits(method, candidate)) {
				return "fallback method " + fallback + " does not fit a retrykit recover method (the method's return type, "
						+ "its parameters and an optional Throwable)";
			}
		}
		candidates.forEach((candidate) -> this.fallbacks.add(candidate.getId()));
		return null;
	}

	private static boolean fits(J.MethodDeclaration method, J.MethodDeclaration candidate) {
		JavaType.Method type = method.getMethodType();
		JavaType.Method candidateType = candidate.getMethodType();
		if (type == null || candidateType == null || !TypeUtils.isOfType(type.getReturnType(), candidateType.getReturnType())) {
			return false;
		}
		List<JavaType> parameters = type.getParameterTypes();
		List<JavaType> candidateParameters = candidateType.getParameterTypes();
		int extra = candidateParameters.size() - parameters.size();
		if (extra < 0 || extra > 1
				|| (extra == 1 && !TypeUtils.isAssignableTo("java.lang.Throwable", candidateParameters.get(candidateParameters.size() - 1)))) {
			return false;
		}
		for (int i = 0; i < parameters.size(); i++) {
			if (!TypeUtils.isOfType(parameters.get(i), candidateParameters.get(i))) {
				return false;
			}
		}
		return true;
	}

	private static @Nullable String literal(@Nullable AnnotationArguments arguments, String name) {
		return (arguments != null && arguments.literal(name) instanceof String text && !text.isEmpty()) ? text : null;
	}

}
