package dev.retrykit.spring.boot.autoconfigure;

import java.util.Locale;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code retry.enabled} is {@code false}. A value that is not a boolean fails startup with a
 * failure analysis, instead of silently switching retrykit off as a plain property condition would
 * ({@code retry.enabled=maybe} is a typo, not a decision).
 */
final class OnRetryEnabledCondition extends SpringBootCondition {

	static final String PROPERTY = "retry.enabled";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String value = context.getEnvironment().getProperty(PROPERTY);
		if (value == null || value.trim().equalsIgnoreCase("true")) {
			return ConditionOutcome.match(PROPERTY + " is " + ((value != null) ? value : "not set"));
		}
		if (value.trim().toLowerCase(Locale.ROOT).equals("false")) {
			return ConditionOutcome.noMatch(PROPERTY + " is false");
		}
		throw new InvalidRetryPropertyException(PROPERTY, value, "it must be true or false",
				"Set '" + PROPERTY + "' to true (the default) or false (to switch retrykit off).", null)
			.locatedIn(context.getEnvironment());
	}

}
