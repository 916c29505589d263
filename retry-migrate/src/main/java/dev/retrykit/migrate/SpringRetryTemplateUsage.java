package dev.retrykit.migrate;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.TypeUtils;

/**
 * Whether a Java file's programmatic use of Spring Retry (outside its annotations) has a faithful retrykit mapping:
 * {@code RetryTemplate.builder()} chains of the builder methods below ending in {@code build()}, {@code execute}
 * with callbacks, recovery and state, {@code RetryCallback}, {@code RecoveryCallback}, {@code RetryContext} and
 * {@code DefaultRetryState}. Anything else (a {@code RetryPolicy}, a {@code BackOffPolicy}, Spring Retry's
 * {@code RetryListener}, {@code new RetryTemplate()} configured through setters, a builder kept in a variable) has
 * none; the reasons are collected.
 */
final class SpringRetryTemplateUsage {

	static final String TEMPLATE = "org.springframework.retry.support.RetryTemplate";

	static final String BUILDER = "org.springframework.retry.support.RetryTemplateBuilder";

	static final String CONTEXT = "org.springframework.retry.RetryContext";

	static final String DEFAULT_STATE = "org.springframework.retry.support.DefaultRetryState";

	/** Spring Retry's types that are mapped, and their retrykit counterparts. */
	static final Map<String, String> TYPES = Map.of(TEMPLATE, "dev.retrykit.RetryTemplate",
			"org.springframework.retry.RetryCallback", "dev.retrykit.RetryCallback",
			"org.springframework.retry.RecoveryCallback", "dev.retrykit.RecoveryCallback", CONTEXT, "dev.retrykit.context.RetryContext",
			"org.springframework.retry.RetryState", "dev.retrykit.RetryState");

	static final Set<String> BUILDER_METHODS = Set.of("maxAttempts", "fixedBackoff", "exponentialBackoff",
			"uniformRandomBackoff", "noBackoff", "retryOn", "notRetryOn", "traversingCauses", "build");

	private static final Set<String> CONTEXT_METHODS = Set.of("getRetryCount", "getLastThrowable", "getParent",
			"setExhaustedOnly", "isExhaustedOnly", "getAttribute", "setAttribute", "hasAttribute");

	private SpringRetryTemplateUsage() {
	}

	/** @return whether the file uses Spring Retry outside its annotations */
	static boolean usesApi(JavaSourceFile java) {
		for (JavaType type : java.getTypesInUse().getTypesInUse()) {
			if (type instanceof JavaType.FullyQualified named && isApi(named.getFullyQualifiedName())) {
				return true;
			}
		}
		return false;
	}

	/** @return why the file's use has no faithful mapping; empty when it has one */
	static Set<String> unmappable(JavaSourceFile java) {
		Set<String> reasons = new java.util.TreeSet<>();
		for (JavaType type : java.getTypesInUse().getTypesInUse()) {
			if (type instanceof JavaType.FullyQualified named && isApi(named.getFullyQualifiedName())
					&& !TYPES.containsKey(named.getFullyQualifiedName()) && !named.getFullyQualifiedName().equals(BUILDER)
					&& !named.getFullyQualifiedName().equals(DEFAULT_STATE)) {
				reasons.add(named.getClassName() + " has no retrykit equivalent");
			}
		}
		reasons = new LinkedHashSet<>(reasons);
		new JavaIsoVisitor<Set<String>>() {
			@Override
			public J.MethodInvocation visitMethodInvocation(J.MethodInvocation invocation, Set<String> found) {
				JavaType.Method method = invocation.getMethodType();
				String name = invocation.getSimpleName();
				if (method != null && TypeUtils.isOfClassType(method.getDeclaringType(), BUILDER)) {
					if (!BUILDER_METHODS.contains(name) || (method.getParameterTypes().size() == 1
							&& !(method.getParameterTypes().get(0) instanceof JavaType.Primitive) && (name.equals("retryOn") || name.equals("notRetryOn"))
							&& !TypeUtils.isOfClassType(method.getParameterTypes().get(0), "java.lang.Class"))) {
						found.add("RetryTemplateBuilder." + name + "(" + method.getParameterTypes().size() + " arguments) has no retrykit equivalent");
					}
					if (name.equals("exponentialBackoff") && invocation.getArguments().size() == 4
							&& !(invocation.getArguments().get(3) instanceof J.Literal)) {
						found.add("exponentialBackoff's withRandom is not a literal");
					}
				}
				if (method != null && TypeUtils.isOfClassType(method.getDeclaringType(), TEMPLATE)
						&& !name.equals("execute") && !name.equals("builder")) {
					found.add("RetryTemplate." + name + " has no retrykit equivalent");
				}
				Expression select = invocation.getSelect();
				if (select != null && TypeUtils.isOfClassType(select.getType(), CONTEXT) && !CONTEXT_METHODS.contains(name)) {
					found.add("RetryContext." + name + " has no retrykit equivalent");
				}
				return super.visitMethodInvocation(invocation, found);
			}

			@Override
			public J.NewClass visitNewClass(J.NewClass newClass, Set<String> found) {
				if (TypeUtils.isOfClassType(newClass.getType(), TEMPLATE)) {
					found.add("new RetryTemplate() is configured through setters; build it with RetryTemplate.builder()");
				}
				return super.visitNewClass(newClass, found);
			}

			@Override
			public J.VariableDeclarations visitVariableDeclarations(J.VariableDeclarations variables, Set<String> found) {
				if (TypeUtils.isOfClassType(variables.getType(), BUILDER)) {
					found.add("a RetryTemplateBuilder kept in a variable; the recipe maps whole builder() ... build() chains");
				}
				return super.visitVariableDeclarations(variables, found);
			}
		}.visit(java, reasons);
		return reasons;
	}

	private static boolean isApi(String type) {
		return type.startsWith("org.springframework.retry.") && !type.startsWith("org.springframework.retry.annotation.");
	}

}
