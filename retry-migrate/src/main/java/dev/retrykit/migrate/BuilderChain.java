package dev.retrykit.migrate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.TypeUtils;

/**
 * A Spring Retry {@code RetryTemplate.builder() ... .build()} chain as the retrykit builder chain with the same
 * policy: a template text with {@code #{any()}} placeholders and the original argument expressions that fill them.
 * Spring Retry's builder semantics: three attempts, no backoff, every exception retried unless told otherwise; its
 * {@code retryOn}/{@code notRetryOn} calls add up.
 *
 * @param text the template text (fully qualified retrykit names)
 * @param arguments the expressions for the placeholders, in order
 */
record BuilderChain(String text, List<Expression> arguments) {

	private static final String POLICY = "dev.retrykit.backoff.BackoffPolicy";

	private static final String TYPE = "dev.retrykit.backoff.BackoffType";

	/**
	 * @param build the {@code build()} invocation of a Spring Retry builder
	 * @return the chain, or null when it does not start at {@code RetryTemplate.builder()}
	 */
	static @Nullable BuilderChain of(J.MethodInvocation build) {
		List<J.MethodInvocation> calls = new ArrayList<>();
		Expression at = build.getSelect();
		while (at instanceof J.MethodInvocation call && TypeUtils.isOfClassType(call.getType(), SpringRetryTemplateUsage.BUILDER)
				&& !call.getSimpleName().equals("builder")) {
			calls.add(call);
			at = call.getSelect();
		}
		if (!(at instanceof J.MethodInvocation start) || !start.getSimpleName().equals("builder")) {
			return null;
		}
		Collections.reverse(calls);
		StringBuilder text = new StringBuilder("dev.retrykit.RetryTemplate.builder()");
		List<Expression> arguments = new ArrayList<>();
		String backoff = POLICY + ".none()";
		List<Expression> backoffArguments = new ArrayList<>();
		List<Expression> retryOn = new ArrayList<>();
		List<Expression> ignore = new ArrayList<>();
		for (J.MethodInvocation call : calls) {
			List<Expression> args = call.getArguments();
			switch (call.getSimpleName()) {
				case "maxAttempts" -> {
					text.append(".maxAttempts(#{any(int)})");
					arguments.add(args.get(0));
				}
				case "retryOn" -> retryOn.add(args.get(0));
				case "notRetryOn" -> ignore.add(args.get(0));
				case "noBackoff" -> {
					backoff = POLICY + ".none()";
					backoffArguments.clear();
				}
				case "fixedBackoff" -> {
					backoff = POLICY + ".fixed(" + duration(args.get(0)) + ")";
					backoffArguments = new ArrayList<>(args);
				}
				case "exponentialBackoff" -> {
					boolean random = args.size() == 4 && Boolean.TRUE.equals(((J.Literal) args.get(3)).getValue());
					backoff = random
							? POLICY + ".builder().type(" + TYPE + ".EXPONENTIAL_RANDOM).delay(" + duration(args.get(0))
									+ ").multiplier(#{any(double)}).maxDelay(" + duration(args.get(2)) + ").build()"
							: POLICY + ".exponential(" + duration(args.get(0)) + ", #{any(double)}, " + duration(args.get(2)) + ")";
					backoffArguments = new ArrayList<>(args.subList(0, 3));
				}
				case "uniformRandomBackoff" -> {
					backoff = POLICY + ".builder().type(" + TYPE + ".UNIFORM_RANDOM).delay(" + duration(args.get(0))
							+ ").maxDelay(" + duration(args.get(1)) + ").build()";
					backoffArguments = new ArrayList<>(args);
				}
				default -> {
					// traversingCauses(): retrykit walks the cause chain always.
				}
			}
		}
		text.append(".backoff(").append(backoff).append(')');
		arguments.addAll(backoffArguments);
		classes(text, arguments, "retryOn", retryOn);
		classes(text, arguments, "ignore", ignore);
		text.append(".build()");
		return new BuilderChain(text.toString(), arguments);
	}

	private static String duration(Expression argument) {
		return TypeUtils.isOfClassType(argument.getType(), "java.time.Duration") ? "#{any(java.time.Duration)}"
				: (argument.getType() == JavaType.Primitive.Int) ? "java.time.Duration.ofMillis(#{any(int)})"
						: "java.time.Duration.ofMillis(#{any(long)})";
	}

	private static void classes(StringBuilder text, List<Expression> arguments, String method, List<Expression> types) {
		if (types.isEmpty()) {
			return;
		}
		text.append('.').append(method).append('(');
		for (int i = 0; i < types.size(); i++) {
			text.append((i == 0) ? "" : ", ").append("#{any(java.lang.Class)}");
		}
		text.append(')');
		arguments.addAll(types);
	}

}
