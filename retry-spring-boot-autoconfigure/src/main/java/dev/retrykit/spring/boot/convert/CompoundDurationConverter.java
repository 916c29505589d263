package dev.retrykit.spring.boot.convert;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.converter.ConditionalConverter;
import org.springframework.core.convert.converter.Converter;

/**
 * Reads durations the way Dapr resiliency specs (Go's {@code time.ParseDuration}) write them, one or
 * more numbers with a unit, largest first: {@code 200ms}, {@code 1m30s}, {@code 1h30m},
 * {@code 1.5s}, {@code -2s}. Units: {@code ns}, {@code us} (or {@code µs}), {@code ms}, {@code s},
 * {@code m}, {@code h}, {@code d}.
 *
 * <p>Registered for configuration-properties binding, it converts only into properties marked
 * {@link CompoundDuration} (retrykit's own), so the application's other properties bind as without the
 * starter. A text it does not read (a plain number, ISO-8601 such as {@code PT1M30S}) makes it throw,
 * and Boot's binder then falls back to its own conversion, which honours {@code @DurationUnit}; so
 * Boot's forms keep working for every property. Thread-safe.
 */
public final class CompoundDurationConverter implements Converter<String, Duration>, ConditionalConverter {

	/**
	 * @param sourceType the text's type
	 * @param targetType the property's type, with its annotations
	 * @return whether the property is marked {@link CompoundDuration}
	 */
	@Override
	public boolean matches(TypeDescriptor sourceType, TypeDescriptor targetType) {
		return targetType.hasAnnotation(CompoundDuration.class);
	}

	private static final Pattern WHOLE = Pattern
		.compile("([+-])?((?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:ns|us|µs|ms|s|m|h|d))+");

	private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?|\\.\\d+)(ns|us|µs|ms|s|m|h|d)");

	/**
	 * @param source the text
	 * @return the duration
	 * @throws IllegalArgumentException if the text is not a compound duration (Boot's conversion is
	 * tried next)
	 */
	@Override
	public Duration convert(String source) {
		String text = source.trim();
		if (!WHOLE.matcher(text).matches()) {
			throw new IllegalArgumentException("Invalid duration (" + source + "): use a number with a unit (500ms, 2s, 1m), "
					+ "a compound duration (1m30s, 1h30m) or ISO-8601 (PT1M30S)");
		}
		boolean negative = text.startsWith("-");
		BigDecimal nanos = BigDecimal.ZERO;
		Matcher part = PART.matcher(text);
		while (part.find()) {
			nanos = nanos.add(new BigDecimal(part.group(1)).multiply(BigDecimal.valueOf(nanosPer(part.group(2)))));
		}
		long total = nanos.setScale(0, RoundingMode.HALF_UP).longValueExact();
		return Duration.ofNanos(negative ? -total : total);
	}

	private static long nanosPer(String unit) {
		return switch (unit) {
			case "ns" -> 1L;
			case "us", "µs" -> 1_000L;
			case "ms" -> 1_000_000L;
			case "s" -> 1_000_000_000L;
			case "m" -> 60_000_000_000L;
			case "h" -> 3_600_000_000_000L;
			default -> 86_400_000_000_000L;
		};
	}

	/**
	 * A time in nanoseconds, rounded to the millisecond, in the compound form of {@link #format}.
	 * @param nanos the time
	 * @return e.g. {@code 9s969ms}
	 */
	public static String formatRounded(long nanos) {
		return format(Duration.ofMillis(Math.round(nanos / 1_000_000.0)));
	}

	/**
	 * The inverse of the conversion, as configuration text, error messages and the actuator show
	 * durations: every non-zero part largest first ({@code 1m30s}, {@code 200ms}, {@code 1d1h}).
	 * @param duration a duration
	 * @return its compound form, {@code 0s} for zero
	 */
	public static String format(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		StringBuilder text = new StringBuilder(duration.isNegative() ? "-" : "");
		Duration rest = duration.abs();
		long days = rest.toDays();
		append(text, days, "d");
		append(text, rest.toHoursPart(), "h");
		append(text, rest.toMinutesPart(), "m");
		append(text, rest.toSecondsPart(), "s");
		append(text, rest.toMillisPart(), "ms");
		append(text, rest.toNanosPart() % 1_000_000, "ns");
		return text.toString();
	}

	private static void append(StringBuilder text, long value, String unit) {
		if (value != 0) {
			text.append(value).append(unit);
		}
	}

}
