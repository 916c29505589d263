package dev.retrykit.internal;

import java.time.Duration;

/**
 * Human-readable durations for configuration text and messages: {@code 100ms}, {@code 2s},
 * {@code 1m30s}, {@code 1h}, {@code 1.5ms}.
 */
public final class Durations {

	private Durations() {
	}

	/**
	 * @param duration the duration
	 * @return its compact form, largest units first
	 */
	public static String format(Duration duration) {
		return formatNanos(duration.toNanos());
	}

	/**
	 * @param nanos a duration in nanoseconds
	 * @return its compact form, largest units first
	 */
	public static String formatNanos(long nanos) {
		if (nanos == 0) {
			return "0s";
		}
		StringBuilder text = new StringBuilder();
		if (nanos < 0) {
			text.append('-');
			nanos = -nanos;
		}
		long millisTotal = nanos / 1_000_000L;
		long subMillis = nanos % 1_000_000L;
		if (millisTotal == 0) {
			return text.append(trim(nanos / 1_000_000.0)).append("ms").toString();
		}
		long hours = millisTotal / 3_600_000L;
		long minutes = (millisTotal / 60_000L) % 60;
		long seconds = (millisTotal / 1000L) % 60;
		long millis = millisTotal % 1000L;
		append(text, hours, "h");
		append(text, minutes, "m");
		append(text, seconds, "s");
		if (millis != 0 || subMillis != 0) {
			text.append((subMillis == 0) ? Long.toString(millis) : trim(millis + subMillis / 1_000_000.0)).append("ms");
		}
		return text.toString();
	}

	private static void append(StringBuilder text, long value, String unit) {
		if (value != 0) {
			text.append(value).append(unit);
		}
	}

	private static String trim(double value) {
		String text = String.format(java.util.Locale.ROOT, "%.3f", value);
		text = text.replaceAll("0+$", "");
		return text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
	}

}
