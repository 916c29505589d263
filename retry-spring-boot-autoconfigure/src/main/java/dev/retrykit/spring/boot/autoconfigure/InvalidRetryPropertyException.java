package dev.retrykit.spring.boot.autoconfigure;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.FailureAnalyzedException;

/**
 * A {@code retry.*} property whose value cannot be used. It carries the property path, the bad value
 * and what is allowed, and is a {@link FailureAnalyzedException}, so the application fails to start
 * with a failure analysis that says all three ({@link RetryFailureAnalyzer} reports it too).
 */
public class InvalidRetryPropertyException extends FailureAnalyzedException {

	/** Core validation messages read "Invalid name (value): rule"; the rule says what is allowed. */
	private static final Pattern CORE_MESSAGE = Pattern.compile("^Invalid .*?\\(.*?\\): (.*)$", Pattern.DOTALL);

	/** The full property path. */
	private final String property;

	/** The bad value as bound. */
	private final @Nullable Object value;

	/** Why the value is invalid, including what is allowed. */
	private final String reason;

	/**
	 * @param property the full property path, e.g. {@code retry.instances.inventory.backoff.multiplier}
	 * @param value the bad value as bound
	 * @param reason why it is invalid, including what is allowed
	 * @param action what to change
	 * @param cause the underlying validation failure, or {@code null}
	 */
	public InvalidRetryPropertyException(String property, @Nullable Object value, String reason, String action,
			@Nullable Throwable cause) {
		super(description(property, value, reason), action, cause);
		this.property = property;
		this.value = value;
		this.reason = reason;
	}

	/**
	 * Wraps a validation failure of a core builder, whose message names the value and the rule.
	 * @param property the full property path
	 * @param value the bad value
	 * @param cause the builder's failure
	 * @return the exception
	 */
	static InvalidRetryPropertyException of(String property, @Nullable Object value, IllegalArgumentException cause) {
		String message = String.valueOf(cause.getMessage());
		Matcher rule = CORE_MESSAGE.matcher(message);
		String allowed = rule.matches() ? "it " + rule.group(1) : message;
		return new InvalidRetryPropertyException(property, value, message,
				"Update '" + property + "' in your configuration: " + allowed + ".", cause);
	}

	private static String description(String property, @Nullable Object value, String reason) {
		return "Invalid value '" + value + "' for property '" + property + "': " + reason;
	}

	/** @return the full property path */
	public String getProperty() {
		return this.property;
	}

	/** @return the bad value */
	public @Nullable Object getValue() {
		return this.value;
	}

	/** @return why the value is invalid */
	public String getReason() {
		return this.reason;
	}

}
