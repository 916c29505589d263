package dev.retrykit.spring.boot.autoconfigure;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The startup failure of an instance whose settings hedging rules out together, as the core's
 * {@code RetryConfigBuilder.build()} found: more copies than a hedged call may send, or a delay of 0
 * whose copies {@code max-extra-load} has no room for. Each names the properties to change. Stateless.
 */
final class HedgingChecks {

	/** The core's "Invalid name (value) ..." message. */
	private static final Pattern INVALID = Pattern.compile("^Invalid (\\w+) \\(([^)]*)\\)");

	private HedgingChecks() {
	}

	/**
	 * @param path the instance's property path, e.g. {@code retry.instances.search}
	 * @param ex what the core's build threw
	 * @return the startup failure that names the properties
	 */
	static InvalidRetryPropertyException failure(String path, IllegalArgumentException ex) {
		String message = String.valueOf(ex.getMessage());
		Matcher matcher = INVALID.matcher(message);
		boolean matched = matcher.find();
		String name = matched ? matcher.group(1) : "maxAttempts";
		String value = matched ? matcher.group(2) : "";
		if ("maxExtraLoad".equals(name)) {
			return new InvalidRetryPropertyException(path + ".hedging.max-extra-load", value,
					"with '" + path + ".hedging.delay' 0 every call sends all its copies at once, and '" + path
							+ ".max-attempts' copies need a max-extra-load of at least max-attempts - 1 (" + message + ")",
					"Raise '" + path + ".hedging.max-extra-load', lower '" + path + ".max-attempts', or set '" + path
							+ ".hedging.delay' to a duration or adaptive.",
					ex);
		}
		return InvalidRetryPropertyException.of(path + ".max-attempts", value, ex);
	}

}
