package dev.retrykit.spring.boot.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

import dev.retrykit.RetryConfig;
import dev.retrykit.RetryConfigBuilder;
import dev.retrykit.annotation.Backoff;
import dev.retrykit.annotation.Retryable;
import dev.retrykit.backoff.BackoffPolicy;
import dev.retrykit.backoff.BackoffPolicyBuilder;
import dev.retrykit.backoff.BackoffType;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Applies a {@link Retryable}'s inline attributes on a builder started from the instance's config.
 * Only attributes that are set change anything. Validation failures name the method and attribute.
 */
final class InlineOverrides {

	private InlineOverrides() {
	}

	/**
	 * @param expressions the context {@code exceptionExpression} is evaluated in, with the failure as root object:
	 * shared by every call (evaluation with an explicit root reads no state of it), its bean resolver lets the
	 * expression call beans ({@code @checker.shouldRetry(#root)})
	 * @return the overridden config, or {@code null} when the annotation sets nothing
	 */
	static @Nullable RetryConfig apply(RetryConfig instance, Retryable retryable, Method method, SpelExpressionParser parser,
			EvaluationContext expressions) {
		Backoff backoff = retryable.backoff();
		boolean backoffSet = backoff.delay() != Backoff.UNSET || backoff.maxDelay() != Backoff.UNSET
				|| backoff.multiplier() >= 0 || backoff.jitter() >= 0 || !backoff.type().isEmpty();
		if (retryable.maxAttempts() == Retryable.UNSET_ATTEMPTS && !backoffSet && retryable.retryFor().length == 0
				&& retryable.noRetryFor().length == 0 && retryable.notRecoverable().length == 0
				&& retryable.exceptionExpression().isEmpty()) {
			return null;
		}
		RetryConfigBuilder builder = RetryConfig.builder(instance);
		if (retryable.maxAttempts() != Retryable.UNSET_ATTEMPTS) {
			set(method, "maxAttempts", retryable.maxAttempts(), () -> builder.maxAttempts(retryable.maxAttempts()));
		}
		if (backoffSet) {
			builder.backoff(backoff(instance, backoff, method));
		}
		if (retryable.retryFor().length > 0) {
			builder.retryOn(Arrays.asList(retryable.retryFor()));
		}
		if (retryable.noRetryFor().length > 0) {
			builder.ignore(Arrays.asList(retryable.noRetryFor()));
		}
		if (retryable.notRecoverable().length > 0) {
			builder.notRecoverable(Arrays.asList(retryable.notRecoverable()));
		}
		if (!retryable.exceptionExpression().isEmpty()) {
			Expression expression = parse(parser, retryable.exceptionExpression(), method);
			List<Class<? extends Throwable>> types = (retryable.retryFor().length > 0)
					? Arrays.asList(retryable.retryFor()) : instance.getRetryOn();
			// As in Spring Retry, the expression is asked only about failures of a retried type.
			Predicate<Throwable> ofType = types.isEmpty() ? failure -> failure instanceof Exception
					: failure -> types.stream().anyMatch(type -> type.isInstance(failure));
			builder.retryOn(List.of()).retryIf(failure -> ofType.test(failure)
					&& Boolean.TRUE.equals(expression.getValue(expressions, failure, Boolean.class)));
		}
		return builder.build();
	}

	private static BackoffPolicy backoff(RetryConfig instance, Backoff backoff, Method method) {
		BackoffPolicyBuilder policy = (instance.getBackoff() instanceof BackoffPolicy inherited)
				? BackoffPolicy.builder(inherited) : BackoffPolicy.builder();
		if (!backoff.type().isEmpty()) {
			set(method, "backoff.type", backoff.type(), () -> policy.type(BackoffType.fromId(backoff.type())));
		}
		if (backoff.delay() != Backoff.UNSET) {
			set(method, "backoff.delay", backoff.delay(), () -> policy.delay(Duration.ofMillis(backoff.delay())));
		}
		if (backoff.maxDelay() != Backoff.UNSET) {
			set(method, "backoff.maxDelay", backoff.maxDelay(), () -> policy.maxDelay(Duration.ofMillis(backoff.maxDelay())));
		}
		if (backoff.multiplier() >= 0) {
			set(method, "backoff.multiplier", backoff.multiplier(), () -> policy.multiplier(backoff.multiplier()));
		}
		if (backoff.jitter() >= 0) {
			set(method, "backoff.jitter", backoff.jitter(), () -> policy.jitter(backoff.jitter()));
		}
		BackoffPolicy[] built = new BackoffPolicy[1];
		set(method, "backoff", backoff, () -> built[0] = policy.build());
		return built[0];
	}

	private static Expression parse(SpelExpressionParser parser, String text, Method method) {
		try {
			String trimmed = text.trim();
			return (trimmed.startsWith("#{") && trimmed.endsWith("}"))
					? parser.parseExpression(trimmed, new TemplateParserContext()) : parser.parseExpression(trimmed);
		}
		catch (ParseException ex) {
			throw new RetryableMethodException(method, "its exceptionExpression '" + text + "' is not valid SpEL: "
					+ ex.getMessage(), "Fix the expression, e.g. exceptionExpression = \"message.contains('timeout')\".", ex);
		}
	}

	private static void set(Method method, String attribute, Object value, Runnable setter) {
		try {
			setter.run();
		}
		catch (IllegalArgumentException ex) {
			throw new RetryableMethodException(method, "invalid " + attribute + " (" + value + "): " + ex.getMessage(),
					"Fix the " + attribute + " attribute of its @Retryable, or remove it to use the instance's value.", ex);
		}
	}

}
