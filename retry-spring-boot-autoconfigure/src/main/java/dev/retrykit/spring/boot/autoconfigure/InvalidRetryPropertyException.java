package dev.retrykit.spring.boot.autoconfigure;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

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

	private final String action;

	private final @Nullable Origin origin;

	/**
	 * @param property the full property path, e.g. {@code retry.instances.inventory.backoff.multiplier}
	 * @param value the bad value as bound
	 * @param reason why it is invalid, including what is allowed
	 * @param action what to change
	 * @param cause the underlying validation failure, or {@code null}
	 */
	public InvalidRetryPropertyException(String property, @Nullable Object value, String reason, String action,
			@Nullable Throwable cause) {
		this(property, value, reason, action, cause, null);
	}

	private InvalidRetryPropertyException(String property, @Nullable Object value, String reason, String action,
			@Nullable Throwable cause, @Nullable Origin origin) {
		// Boot's constructor with a cause takes a non-null one.
		super(description(property, value, reason, origin), action);
		if (cause != null) {
			initCause(cause);
		}
		this.property = property;
		this.value = value;
		this.reason = reason;
		this.action = action;
		this.origin = origin;
	}

	/**
	 * The same failure, saying where the property was set (file and line), as Boot's own bind failures do.
	 * @param environment the environment the property was read from
	 * @return a copy that names the property's origin, or this exception when the origin is unknown
	 */
	public InvalidRetryPropertyException locatedIn(Environment environment) {
		if (this.origin != null) {
			return this;
		}
		Origin found = origin(environment, this.property);
		return (found != null)
				? new InvalidRetryPropertyException(this.property, this.value, this.reason, this.action, getCause(), found)
				: this;
	}

	/**
	 * @param environment the environment
	 * @param property a property path
	 * @return where the property is set (the source that wins), or {@code null} when unknown or not set
	 */
	static @Nullable Origin origin(Environment environment, String property) {
		if (!ConfigurationPropertyName.isValid(property)) {
			return null;
		}
		ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			ConfigurationProperty found = source.getConfigurationProperty(name);
			if (found != null) {
				return found.getOrigin();
			}
		}
		return null;
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
		// The core's message names its builder's setting (maxAttempts); the property path says it in the user's terms.
		Matcher rule = CORE_MESSAGE.matcher(message);
		return new InvalidRetryPropertyException(property, value, rule.matches() ? rule.group(1) : message,
				"Update '" + property + "' in your configuration: " + (rule.matches() ? "it " + rule.group(1) : message)
						+ ".", cause);
	}

	private static String description(String property, @Nullable Object value, String reason, @Nullable Origin origin) {
		return "Invalid value '" + value + "' for property '" + property + "'"
				+ ((origin != null) ? " (from " + origin + ")" : "") + ": " + reason;
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
