package dev.retrykit.spring.boot.autoconfigure;

import java.beans.PropertyDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains why the application failed to start because of retrykit: an invalid {@code retry.*} value
 * ({@link InvalidRetryPropertyException}), an invalid {@code @Retryable} declaration, an unknown key
 * under {@code retry.*} (listing the keys allowed there), or a value that cannot be converted (saying
 * which forms are allowed). Runs before Boot's own analyzers, which would report the last two less
 * precisely. Registered in {@code META-INF/spring.factories}. Thread-safe.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public final class RetryFailureAnalyzer implements FailureAnalyzer {

	private static final String PREFIX = "retry.";

	/** The endpoint's own settings: their bad values are explained the same way. */
	private static final String ENDPOINT_PREFIX = "management.endpoint.retries.";

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() == cause) ? null : cause.getCause()) {
			if (cause instanceof FailureAnalyzedException analyzed
					&& analyzed.getClass().getPackageName().startsWith("dev.retrykit.spring")) {
				return analyzed.analysis();
			}
			if (cause instanceof UnboundConfigurationPropertiesException unbound) {
				FailureAnalysis analysis = unknownKeys(unbound);
				if (analysis != null) {
					return analysis;
				}
			}
			if (cause instanceof BindException bind && bind.getProperty() != null
					&& (bind.getProperty().getName().toString().startsWith(PREFIX)
							|| bind.getProperty().getName().toString().startsWith(ENDPOINT_PREFIX))) {
				return badValue(bind, bind.getProperty());
			}
		}
		return null;
	}

	private static @Nullable FailureAnalysis unknownKeys(UnboundConfigurationPropertiesException unbound) {
		ConfigurationProperty first = unbound.getUnboundProperties().stream()
			.filter(property -> property.getName().toString().startsWith(PREFIX))
			.findFirst()
			.orElse(null);
		if (first == null) {
			return null;
		}
		StringBuilder description = new StringBuilder("Unknown retry properties:\n");
		for (ConfigurationProperty property : unbound.getUnboundProperties()) {
			description.append("\n    Property: ").append(property.getName()).append("\n    Value: '")
				.append(property.getValue()).append("'");
			if (property.getOrigin() != null) {
				description.append("\n    Origin: ").append(property.getOrigin());
			}
			description.append("\n    Reason: no such key; allowed here: ")
				.append(allowedKeys(property.getName())).append('\n');
		}
		return new FailureAnalysis(description.toString(), "Remove or correct '" + first.getName()
				+ "'; the keys allowed at that level are " + allowedKeys(first.getName()) + ".", unbound);
	}

	private static FailureAnalysis badValue(BindException bind, ConfigurationProperty property) {
		Throwable root = bind;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		Class<?> type = bind.getTarget().getType().resolve(Object.class);
		String description = "Invalid value '" + property.getValue() + "' for property '" + property.getName() + "'"
				+ ((property.getOrigin() != null) ? " (from " + property.getOrigin() + ")" : "") + ": "
				+ root.getMessage();
		return new FailureAnalysis(description, "Update '" + property.getName() + "' in your configuration to "
				+ allowedForm(type) + ".", bind);
	}

	private static String allowedForm(Class<?> type) {
		if (type == Duration.class) {
			return "a duration such as 500ms, 2s, 1m30s, 1h30m or PT1M30S";
		}
		if (type == Integer.class || type == int.class) {
			return "a whole number";
		}
		if (type == Double.class || type == double.class) {
			return "a number";
		}
		if (type == Boolean.class || type == boolean.class) {
			return "true or false";
		}
		if (type.isEnum()) {
			// Boot binds enum constants from their dashed form, which is how users write them.
			return "one of " + String.join(", ", java.util.Arrays.stream(type.getEnumConstants())
				.map(constant -> ((Enum<?>) constant).name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
				.toList());
		}
		return "a valid " + type.getSimpleName();
	}

	/** The keys of the group that holds {@code name}, found by walking the properties classes. */
	static TreeSet<String> allowedKeys(ConfigurationPropertyName name) {
		Class<?> type = RetryProperties.class;
		for (int i = 1; i < name.getNumberOfElements() - 1; i++) {
			String element = name.getElement(i, Form.DASHED);
			if (name.isNumericIndex(i)) {
				continue;
			}
			PropertyDescriptor descriptor = descriptor(type, element);
			if (descriptor == null) {
				break;
			}
			Class<?> next = descriptor.getPropertyType();
			if (Map.class.isAssignableFrom(next)) {
				type = RetryInstanceProperties.class;
				i++;
			}
			else if (List.class.isAssignableFrom(next)) {
				type = RetryProperties.Target.class;
			}
			else if (next.getName().startsWith("dev.retrykit")) {
				type = next;
			}
			else {
				break;
			}
		}
		TreeSet<String> keys = new TreeSet<>();
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (!descriptor.getName().equals("class")) {
				keys.add(dashed(descriptor.getName()));
			}
		}
		return keys;
	}

	private static @Nullable PropertyDescriptor descriptor(Class<?> type, String dashed) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (dashed(descriptor.getName()).equals(dashed)) {
				return descriptor;
			}
		}
		return null;
	}

	private static String dashed(String camelCase) {
		return camelCase.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
	}

}
