package dev.retrykit.spring.boot.autoconfigure;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import dev.retrykit.spi.TimeSource;
import dev.retrykit.spring.boot.http.HopHeaders;

/**
 * Checks the header names of {@code retry.http.*}: each an HTTP token (RFC 9110 5.6.2), no two the same (names are
 * case-insensitive). Used at startup, by the validation of {@code retry.*} and by the HTTP auto-configurations.
 */
final class HttpHeaderNames {

	private static final String TOKEN_RULE = "a header name is an HTTP token (RFC 9110 5.6.2): one or more letters, "
			+ "digits or !#$%&'*+-.^_`|~, with no spaces or colons";

	private HttpHeaderNames() {
	}

	/**
	 * @param http the bound {@code retry.http} properties
	 * @throws InvalidRetryPropertyException naming the first property whose header name is not allowed
	 */
	static void check(RetryProperties.Http http) {
		Map<String, String> seen = new HashMap<>();
		check(seen, "retry.http.attempt-header", http.getAttemptHeader(), "X-Retry-Attempt");
		check(seen, "retry.http.exhausted-header", http.getExhaustedHeader(), HopHeaders.DEFAULT_EXHAUSTED_HEADER);
		check(seen, "retry.http.deadline-header", http.getDeadlineHeader(), HopHeaders.DEFAULT_DEADLINE_HEADER);
	}

	/**
	 * @param http the bound {@code retry.http} properties
	 * @param timeSource the clock the deadlines of requests are set on
	 * @return the headers that travel across hops
	 * @throws InvalidRetryPropertyException naming the first property whose header name is not allowed
	 */
	static HopHeaders hopHeaders(RetryProperties.Http http, TimeSource timeSource) {
		check(http);
		return HopHeaders.of(http.getExhaustedHeader(), http.getDeadlineHeader(), timeSource);
	}

	private static void check(Map<String, String> seen, String property, String name, String example) {
		if (!HopHeaders.isToken(name)) {
			throw new InvalidRetryPropertyException(property, name, TOKEN_RULE,
					"Update '" + property + "' to a header name such as " + example + ".", null);
		}
		String other = seen.putIfAbsent(name.toLowerCase(Locale.ROOT), property);
		if (other != null) {
			throw new InvalidRetryPropertyException(property, name, "'" + other + "' names the same header, and each "
					+ "of the retry headers carries something else", "Give '" + property + "' a name of its own, such as "
					+ example + ".", null);
		}
	}

}
