package dev.retrykit.text;

import java.time.Duration;

/**
 * Durations for people, in configuration text, messages and events: {@link #format} writes every
 * non-zero part largest first ({@code 100ms}, {@code 2s}, {@code 1m30s}, {@code 1d2h}), a form the
 * Spring module also reads back; {@link #remaining} rounds a time left up to a tenth of a second
 * ({@code 12.3s}, {@code 1m5.2s}). Stateless and thread-safe; no method throws for any input.
 */
public final class Durations {

	private static final long MILLI = 1_000_000L;

	private static final long SECOND = 1_000_000_000L;

	private static final long[] UNIT_NANOS = { 86_400 * SECOND, 3_600 * SECOND, 60 * SECOND, SECOND, MILLI, 1_000L,
			1L };

	private static final String[] UNIT_SUFFIXES = { "d", "h", "m", "s", "ms", "us", "ns" };

	private static final int SECONDS_UNIT = 3;

	private Durations() {
	}

	/**
	 * Formats a duration in short units, such as {@code 1m30s}.
	 * @param duration any duration, negative ones included
	 * @return its non-zero parts from days down to nanoseconds, largest first; {@code 0s} for zero
	 */
	public static String format(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		if (duration.isNegative()) {
			// Duration.negated() overflows for the most negative duration, which no one sets on purpose.
			return (duration.getSeconds() == Long.MIN_VALUE) ? duration.toString() : "-" + format(duration.negated());
		}
		StringBuilder text = new StringBuilder();
		// Seconds and larger come from getSeconds() so that durations beyond Long.MAX_VALUE nanos format too.
		long seconds = duration.getSeconds();
		for (int unit = 0; unit <= SECONDS_UNIT; unit++) {
			long unitSeconds = UNIT_NANOS[unit] / SECOND;
			append(text, seconds / unitSeconds, UNIT_SUFFIXES[unit]);
			seconds %= unitSeconds;
		}
		long nanos = duration.getNano();
		for (int unit = SECONDS_UNIT + 1; unit < UNIT_NANOS.length; unit++) {
			append(text, nanos / UNIT_NANOS[unit], UNIT_SUFFIXES[unit]);
			nanos %= UNIT_NANOS[unit];
		}
		return text.toString();
	}

	/**
	 * Formats a number of nanoseconds as {@link #format(Duration)} does.
	 * @param nanos a duration in nanoseconds
	 * @return {@link #format(Duration)} of it
	 */
	public static String formatNanos(long nanos) {
		return format(Duration.ofNanos(nanos));
	}

	/**
	 * A measured duration as people read it, in Spring Boot's units and rounded to what matters at its size:
	 * whole microseconds below a millisecond ({@code 750us}), whole milliseconds below a second
	 * ({@code 5ms}, {@code 100ms}), seconds with at most one decimal below a minute ({@code 1.5s}, {@code 12s}),
	 * then whole seconds in larger units ({@code 2m}, {@code 2m30s}, {@code 1h5m}). Halves round up.
	 * @param duration any duration; a negative one is formatted as its magnitude with a {@code -}
	 * @return e.g. {@code 5ms} for 5.4 ms, {@code 1.5s} for 1,460 ms; {@code 0s} for zero
	 */
	public static String approximate(Duration duration) {
		if (duration.isNegative()) {
			return (duration.getSeconds() == Long.MIN_VALUE) ? duration.toString() : "-" + approximate(duration.negated());
		}
		if (duration.isZero()) {
			return "0s";
		}
		if (duration.getSeconds() >= 60) {
			long seconds = duration.getSeconds() + ((duration.getNano() >= SECOND / 2) ? 1 : 0);
			StringBuilder text = new StringBuilder();
			for (int unit = 0; unit <= SECONDS_UNIT; unit++) {
				long unitSeconds = UNIT_NANOS[unit] / SECOND;
				append(text, seconds / unitSeconds, UNIT_SUFFIXES[unit]);
				seconds %= unitSeconds;
			}
			return text.toString();
		}
		long nanos = duration.toNanos();
		if (nanos < MILLI) {
			long micros = (nanos + 500) / 1000;
			return (micros < 1000) ? micros + "us" : "1ms";
		}
		if (nanos < SECOND) {
			long millis = (nanos + MILLI / 2) / MILLI;
			return (millis < 1000) ? millis + "ms" : "1s";
		}
		long tenths = (nanos + SECOND / 20) / (SECOND / 10);
		if (tenths >= 600) {
			return "1m";
		}
		return (tenths % 10 == 0) ? (tenths / 10) + "s" : (tenths / 10) + "." + (tenths % 10) + "s";
	}

	/**
	 * A time left, rounded up: milliseconds below a second, else tenths of a second.
	 * @param nanos the time left in nanoseconds
	 * @return e.g. {@code 250ms}, {@code 12.3s}, {@code 1h1m}; {@code 0s} when none is left
	 */
	public static String remaining(long nanos) {
		if (nanos <= 0) {
			return "0s";
		}
		long millis = ceilDiv(nanos, MILLI);
		if (millis < 1000) {
			return millis + "ms";
		}
		long tenths = ceilDiv(nanos, SECOND / 10);
		long hours = tenths / 36_000;
		long minutes = tenths % 36_000 / 600;
		long secondTenths = tenths % 600;
		StringBuilder text = new StringBuilder();
		append(text, hours, "h");
		append(text, minutes, "m");
		if (secondTenths > 0 || text.length() == 0) {
			text.append(secondTenths / 10);
			if (secondTenths % 10 != 0) {
				text.append('.').append(secondTenths % 10);
			}
			text.append('s');
		}
		return text.toString();
	}

	private static void append(StringBuilder text, long amount, String suffix) {
		if (amount != 0) {
			text.append(amount).append(suffix);
		}
	}

	private static long ceilDiv(long value, long divisor) {
		return value / divisor + ((value % divisor == 0) ? 0 : 1);
	}

}
