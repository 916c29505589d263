package dev.retrykit.spring.boot.http;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

import dev.retrykit.spi.DelayHintExtractor;
import dev.retrykit.spi.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Reads the HTTP {@code Retry-After} header of a failed Spring HTTP client call as a delay hint, in
 * both forms: delta-seconds ({@code Retry-After: 120}) and HTTP-date
 * ({@code Retry-After: Fri, 31 Dec 1999 23:59:59 GMT}, measured from the {@link TimeSource}'s wall clock,
 * so it runs in virtual time in tests). A date in the past gives a zero delay; a malformed value gives
 * no hint. Installed on an instance by {@code honor-retry-after: true}. Thread-safe; never throws.
 */
public final class RetryAfterDelayHintExtractor implements DelayHintExtractor {

	/** The header name. */
	public static final String RETRY_AFTER = "Retry-After";

	private final HttpErrorReader[] readers;

	private final TimeSource timeSource;

	/**
	 * @param classLoader the class loader in which to look for the exception types
	 * @param timeSource the wall clock that HTTP-dates are measured from
	 */
	public RetryAfterDelayHintExtractor(@Nullable ClassLoader classLoader, TimeSource timeSource) {
		this.readers = HttpErrorReaders.present(classLoader);
		this.timeSource = timeSource;
	}

	@Override
	public @Nullable Duration delayHint(Throwable failure) {
		for (HttpErrorReader reader : this.readers) {
			HttpErrorResponse response = reader.read(failure);
			String value = (response != null) ? response.header(RETRY_AFTER) : null;
			if (value != null) {
				return parse(value, this.timeSource.currentTimeMillis());
			}
		}
		return null;
	}

	/**
	 * @param value a {@code Retry-After} value
	 * @param nowMillis the current wall-clock time
	 * @return the delay it asks for, zero or more, or {@code null} if it is malformed
	 */
	static @Nullable Duration parse(String value, long nowMillis) {
		String text = value.trim();
		if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
			try {
				return Duration.ofSeconds(Long.parseLong(text));
			}
			catch (NumberFormatException ex) {
				return null;
			}
		}
		try {
			long at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
			return Duration.ofMillis(Math.max(0, at - nowMillis));
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	@Override
	public String toString() {
		return "RetryAfterDelayHintExtractor";
	}

}
