package dev.retrykit.spring.boot.http;

import java.time.Duration;
import java.util.Objects;

import dev.retrykit.Deadline;
import dev.retrykit.spi.TimeSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The headers that carry retry decisions across hops ({@code retry.http.*}), and how their values read and write:
 * <ul>
 * <li>{@code X-Retry-Exhausted: <instance>} on an error response: the service already retried (instance
 * {@code <instance>} gave up), so its caller must not retry.</li>
 * <li>{@code X-Request-Timeout: <ms>} on a request: the time its caller still waits for the answer, in whole
 * milliseconds. A value that is not a non-negative integer is ignored (one debug log line, the request goes on
 * without a deadline); {@code 0} is a deadline that has passed; a value above {@link #MAX_TIMEOUT} is clamped to
 * it, so that a buggy caller cannot make work that nobody waits for look wanted for days.</li>
 * </ul>
 * With propagation switched off ({@code retry.http.propagation.enabled=false}) the filters and clients get none.
 * Immutable and thread-safe.
 */
public final class HopHeaders {

	/** The default name of the exhaustion header. */
	public static final String DEFAULT_EXHAUSTED_HEADER = "X-Retry-Exhausted";

	/** The default name of the deadline header. */
	public static final String DEFAULT_DEADLINE_HEADER = "X-Request-Timeout";

	/** The longest deadline a request's header can set; longer ones are clamped to it. */
	public static final Duration MAX_TIMEOUT = Duration.ofHours(1);

	/** Digits of {@link #MAX_TIMEOUT} in milliseconds and more: such a value is clamped without being parsed. */
	private static final int MAX_DIGITS = Long.toString(MAX_TIMEOUT.toMillis()).length() + 1;

	private static final Log logger = LogFactory.getLog(HopHeaders.class);

	private final String exhaustedHeader;

	private final String deadlineHeader;

	private final TimeSource timeSource;

	private HopHeaders(String exhaustedHeader, String deadlineHeader, TimeSource timeSource) {
		this.exhaustedHeader = exhaustedHeader;
		this.deadlineHeader = deadlineHeader;
		this.timeSource = timeSource;
	}

	/**
	 * @param exhaustedHeader the exhaustion header's name ({@code retry.http.exhausted-header})
	 * @param deadlineHeader the deadline header's name ({@code retry.http.deadline-header})
	 * @param timeSource the clock the deadlines of requests are set on (the registry's)
	 * @return the headers
	 * @throws IllegalArgumentException if a name is not an HTTP token (see {@link #isToken})
	 */
	public static HopHeaders of(String exhaustedHeader, String deadlineHeader, TimeSource timeSource) {
		if (!isToken(exhaustedHeader) || !isToken(deadlineHeader)) {
			throw new IllegalArgumentException("Invalid header names (" + exhaustedHeader + ", " + deadlineHeader
					+ "): a header name is an HTTP token (RFC 9110 5.1)");
		}
		return new HopHeaders(exhaustedHeader, deadlineHeader, Objects.requireNonNull(timeSource, "timeSource"));
	}

	/** {@return the default headers on the system clock} */
	public static HopHeaders defaults() {
		return new HopHeaders(DEFAULT_EXHAUSTED_HEADER, DEFAULT_DEADLINE_HEADER, TimeSource.SYSTEM);
	}

	/** {@return the exhaustion header's name} */
	public String exhaustedHeader() {
		return this.exhaustedHeader;
	}

	/** {@return the deadline header's name} */
	public String deadlineHeader() {
		return this.deadlineHeader;
	}

	/**
	 * Reads a request's deadline header; never throws.
	 * @param value the header's value, or {@code null} when the request has none
	 * @return the deadline it sets from now, or {@code null} when there is none or it is malformed
	 */
	public @Nullable Deadline deadline(@Nullable String value) {
		if (value == null) {
			return null;
		}
		String millis = value.trim();
		if (millis.isEmpty() || !millis.chars().allMatch(c -> c >= '0' && c <= '9')) {
			if (logger.isDebugEnabled()) {
				logger.debug("Ignored the request's " + this.deadlineHeader + " header '"
						+ ((value.length() > 64) ? value.substring(0, 64) + "..." : value)
						+ "': not a non-negative number of milliseconds; the request runs without a deadline");
			}
			return null;
		}
		Duration timeout = (millis.length() >= MAX_DIGITS) ? MAX_TIMEOUT
				: Duration.ofMillis(Math.min(Long.parseLong(millis), MAX_TIMEOUT.toMillis()));
		return Deadline.after(timeout, this.timeSource);
	}

	/**
	 * The value of the deadline header an outgoing request carries: the whole milliseconds left.
	 * @param deadline the deadline the request runs under
	 * @return the milliseconds left, or {@code -1} when less than one is (the request is not worth sending)
	 */
	public static long millisLeft(Deadline deadline) {
		long millis = deadline.remainingNanos() / 1_000_000L;
		return (millis > 0) ? millis : -1;
	}

	/**
	 * Whether a name is an HTTP token (RFC 9110 5.6.2): one or more of the letters, digits and
	 * {@code !#$%&'*+-.^_`|~}.
	 * @param name the name
	 * @return whether it can name a header
	 */
	public static boolean isToken(@Nullable String name) {
		if (name == null || name.isEmpty()) {
			return false;
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			boolean token = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
					|| "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
			if (!token) {
				return false;
			}
		}
		return true;
	}

	@Override
	public String toString() {
		return "HopHeaders[exhausted=" + this.exhaustedHeader + ", deadline=" + this.deadlineHeader + "]";
	}

}
