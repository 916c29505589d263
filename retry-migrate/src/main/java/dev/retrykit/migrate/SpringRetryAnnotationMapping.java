package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.openrewrite.java.tree.J;

/**
 * Maps Spring Retry's {@code @Retryable}, {@code @Backoff} and {@code @CircuitBreaker} to retrykit's
 * {@code @Retryable}, keeping their behaviour: the source text of the new annotation and, where an annotation cannot
 * carry a setting (a circuit breaker, a placeholder), the instance settings for {@code application.yml}.
 *
 * <p>Spring Retry's defaults are written out where retrykit's differ: a {@code @Retryable} without a backoff waits a
 * fixed second between attempts in Spring Retry, so it gets {@code @Backoff(delay = 1000, type = "fixed")}.
 * Stateless; thread-safe.
 */
final class SpringRetryAnnotationMapping {

	static final String RETRYABLE = "dev.retrykit.annotation.Retryable";

	static final String BACKOFF = "dev.retrykit.annotation.Backoff";

	/** Spring Retry's {@code ExponentialBackOffPolicy.DEFAULT_MAX_INTERVAL}, used when maxDelay is not above delay. */
	private static final long SPRING_EXPONENTIAL_MAX_DELAY = 30_000;

	/** retrykit's default max-delay: a fixed delay above it needs its own cap to stay what it was. */
	private static final long RETRYKIT_DEFAULT_MAX_DELAY = 10_000;

	private static final Set<String> RETRYABLE_ATTRIBUTES = Set.of("value", "include", "retryFor", "exclude", "noRetryFor",
			"notRecoverable", "label", "stateful", "maxAttempts", "maxAttemptsExpression", "backoff", "exceptionExpression",
			"listeners", "recover", "interceptor");

	private static final Set<String> CIRCUIT_BREAKER_ATTRIBUTES = Set.of("value", "include", "retryFor", "exclude",
			"noRetryFor", "notRecoverable", "maxAttempts", "maxAttemptsExpression", "label", "resetTimeout",
			"resetTimeoutExpression", "openTimeout", "openTimeoutExpression", "exceptionExpression",
			"throwLastExceptionOnExhausted", "recover");

	private SpringRetryAnnotationMapping() {
	}

	/**
	 * The outcome of mapping one annotation.
	 * @param text the new annotation's source (fully qualified names), or null when it cannot be mapped
	 * @param reason why it cannot be mapped, or null
	 * @param instance the instance the settings belong to, or null when there are none
	 * @param settings instance settings (property paths below {@code retry.instances.<instance>}) in order
	 */
	record Result(@Nullable String text, @Nullable String reason, @Nullable String instance, Map<String, String> settings) {

		static Result unmapped(String reason) {
			return new Result(null, reason, null, Map.of());
		}

	}

	/**
	 * @param arguments the arguments of a Spring Retry {@code @Retryable}
	 * @param defaultName the retrykit instance name of the method ({@code SimpleClassName.method}) or null on a type
	 * @return the mapping
	 */
	static Result retryable(AnnotationArguments arguments, @Nullable String defaultName) {
		String unknown = unknownAttribute(arguments, RETRYABLE_ATTRIBUTES);
		if (unknown != null) {
			return Result.unmapped(unknown);
		}
		if (arguments.has("interceptor")) {
			return Result.unmapped("@Retryable(interceptor) names a MethodInterceptor bean that builds its own retry; retrykit has none");
		}
		Map<String, String> settings = new LinkedHashMap<>();
		List<String> out = new ArrayList<>();
		String name = stringLiteral(arguments, "label");
		String maxAttemptsExpression = arguments.has("maxAttemptsExpression") ? stringLiteral(arguments, "maxAttemptsExpression") : null;
		if (arguments.has("maxAttemptsExpression")) {
			if (!isPlaceholder(maxAttemptsExpression)) {
				return Result.unmapped("maxAttemptsExpression is evaluated as SpEL at run time; only a ${...} placeholder maps (to max-attempts in application.yml)");
			}
			if (name == null) {
				name = defaultName;
			}
			if (name == null) {
				return Result.unmapped("maxAttemptsExpression on a type needs an instance name (label) to map to application.yml");
			}
			settings.put("max-attempts", maxAttemptsExpression);
		}
		if (name != null) {
			out.add("value = " + quote(name));
		}
		if (arguments.has("maxAttempts")) {
			out.add("maxAttempts = " + arguments.text("maxAttempts"));
		}
		String backoff = backoff(arguments);
		if (backoff.startsWith("!")) {
			return Result.unmapped(backoff.substring(1));
		}
		out.add("backoff = " + backoff);
		classes(arguments, out, "retryFor", "value", "include", "retryFor");
		classes(arguments, out, "noRetryFor", "exclude", "noRetryFor");
		classes(arguments, out, "notRecoverable", "notRecoverable");
		copy(arguments, out, "recover", "stateful", "exceptionExpression", "listeners");
		return new Result(annotation(RETRYABLE, out), null, settings.isEmpty() ? null : name, settings);
	}

	/**
	 * @param arguments the arguments of a Spring Retry {@code @CircuitBreaker}
	 * @param defaultName the retrykit instance name of the method ({@code SimpleClassName.method}) or null on a type
	 * @return the mapping: one attempt per call through an instance whose breaker opens as Spring Retry's does
	 */
	static Result circuitBreaker(AnnotationArguments arguments, @Nullable String defaultName) {
		String unknown = unknownAttribute(arguments, CIRCUIT_BREAKER_ATTRIBUTES);
		if (unknown != null) {
			return Result.unmapped(unknown);
		}
		for (String expression : List.of("resetTimeoutExpression", "openTimeoutExpression")) {
			if (arguments.has(expression)) {
				return Result.unmapped(expression + " is evaluated at run time; write the timeout as a number of milliseconds");
			}
		}
		String name = stringLiteral(arguments, "label");
		if (name == null) {
			name = defaultName;
		}
		if (name == null) {
			return Result.unmapped("@CircuitBreaker on a type needs a label: its breaker is configured by instance name");
		}
		String failures;
		if (arguments.has("maxAttemptsExpression")) {
			failures = stringLiteral(arguments, "maxAttemptsExpression");
			if (!isPlaceholder(failures)) {
				return Result.unmapped("maxAttemptsExpression is evaluated as SpEL at run time; only a ${...} placeholder maps");
			}
		}
		else {
			Object maxAttempts = arguments.has("maxAttempts") ? arguments.literal("maxAttempts") : Integer.valueOf(3);
			if (!(maxAttempts instanceof Number)) {
				return Result.unmapped("maxAttempts is not a literal number; the breaker's trip expression needs its value");
			}
			failures = String.valueOf(((Number) maxAttempts).longValue());
		}
		Long openTimeout = millis(arguments, "openTimeout", 5000);
		Long resetTimeout = millis(arguments, "resetTimeout", 20000);
		if (openTimeout == null || resetTimeout == null) {
			return Result.unmapped("openTimeout/resetTimeout is not a literal number of milliseconds");
		}
		Map<String, String> settings = new LinkedHashMap<>();
		settings.put("max-attempts", "1");
		settings.put("circuit-breaker.trip", "totalFailures >= " + failures);
		settings.put("circuit-breaker.interval", openTimeout + "ms");
		settings.put("circuit-breaker.timeout", resetTimeout + "ms");
		settings.put("circuit-breaker.max-requests", "1");
		List<String> out = new ArrayList<>();
		out.add("value = " + quote(name));
		out.add("maxAttempts = 1");
		classes(arguments, out, "retryFor", "value", "include", "retryFor");
		classes(arguments, out, "noRetryFor", "exclude", "noRetryFor");
		classes(arguments, out, "notRecoverable", "notRecoverable");
		copy(arguments, out, "recover", "exceptionExpression");
		return new Result(annotation(RETRYABLE, out), null, name, settings);
	}

	/**
	 * @return the retrykit {@code @Backoff} source for the arguments' {@code backoff}, or "!" and the reason it has
	 * no faithful mapping; follows Spring Retry's {@code BackOffPolicyBuilder}
	 */
	static String backoff(AnnotationArguments arguments) {
		J.Annotation nested = arguments.annotation("backoff");
		AnnotationArguments backoff = (nested != null) ? arguments.nested(nested) : null;
		if (arguments.has("backoff") && backoff == null) {
			return "!backoff is not an inline @Backoff annotation";
		}
		long value = 1000;
		long delay = 0;
		long maxDelay = 0;
		double multiplier = 0;
		boolean random = false;
		if (backoff != null) {
			for (String name : backoff.names()) {
				Object literal = backoff.literal(name);
				switch (name) {
					case "value", "delay", "maxDelay", "multiplier", "random" -> {
						if (literal == null) {
							return "!@Backoff(" + name + ") is not a literal; the recipe needs its value";
						}
					}
					default -> {
						return "!@Backoff(" + name + ") is evaluated at run time; write the value itself";
					}
				}
				switch (name) {
					case "value" -> value = ((Number) literal).longValue();
					case "delay" -> delay = ((Number) literal).longValue();
					case "maxDelay" -> maxDelay = ((Number) literal).longValue();
					case "multiplier" -> multiplier = ((Number) literal).doubleValue();
					default -> random = Boolean.TRUE.equals(literal);
				}
			}
		}
		long base = (delay == 0) ? value : delay;
		List<String> out = new ArrayList<>();
		out.add("delay = " + base);
		if (multiplier > 0) {
			out.add("maxDelay = " + ((maxDelay > base) ? maxDelay : Math.max(SPRING_EXPONENTIAL_MAX_DELAY, base)));
			out.add("multiplier = " + number(Math.max(multiplier, 1.0)));
			out.add("type = " + quote(random ? "exponential-random" : "exponential"));
		}
		else if (maxDelay > base) {
			out.add("maxDelay = " + maxDelay);
			out.add("type = \"uniform-random\"");
		}
		else {
			if (base > RETRYKIT_DEFAULT_MAX_DELAY) {
				out.add("maxDelay = " + base);
			}
			out.add("type = \"fixed\"");
		}
		return annotation(BACKOFF, out);
	}

	private static @Nullable Long millis(AnnotationArguments arguments, String name, long otherwise) {
		if (!arguments.has(name)) {
			return otherwise;
		}
		return (arguments.literal(name) instanceof Number number) ? number.longValue() : null;
	}

	private static @Nullable String unknownAttribute(AnnotationArguments arguments, Set<String> known) {
		for (String name : arguments.names()) {
			if (!known.contains(name)) {
				return "attribute " + name + " is unknown to the recipe";
			}
		}
		return null;
	}

	private static void classes(AnnotationArguments arguments, List<String> out, String target, String... sources) {
		List<String> types = new ArrayList<>();
		for (String source : sources) {
			for (String type : arguments.elements(source)) {
				if (!types.contains(type)) {
					types.add(type);
				}
			}
		}
		if (types.size() == 1) {
			out.add(target + " = " + types.get(0));
		}
		else if (!types.isEmpty()) {
			out.add(target + " = {" + String.join(", ", types) + "}");
		}
	}

	private static void copy(AnnotationArguments arguments, List<String> out, String... names) {
		for (String name : names) {
			if (arguments.has(name)) {
				out.add(name + " = " + arguments.text(name));
			}
		}
	}

	private static @Nullable String stringLiteral(AnnotationArguments arguments, String name) {
		return (arguments.literal(name) instanceof String text && !text.isEmpty()) ? text : null;
	}

	private static boolean isPlaceholder(@Nullable String expression) {
		return expression != null && expression.startsWith("${") && expression.endsWith("}")
				&& expression.indexOf("${", 1) < 0;
	}

	static String quote(String text) {
		return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

	private static String number(double value) {
		return (value == Math.rint(value)) ? String.valueOf((long) value) + ".0" : String.valueOf(value);
	}

	private static String annotation(String type, List<String> attributes) {
		return "@" + type + (attributes.isEmpty() ? "" : "(" + String.join(", ", attributes) + ")");
	}

}
