package dev.retrykit.backoff;

import java.time.Duration;

/**
 * Formats durations for people, as in {@code 100ms}, {@code 2s} or {@code 1m30s}, for
 * {@link BackoffPolicy#toString()} and validation messages. Stateless and thread-safe.
 */
final class DurationFormat {

	private static final long[] UNIT_NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
			1_000_000_000L, 1_000_000L, 1_000L, 1L };

	private static final String[] UNIT_SUFFIXES = { "d", "h", "m", "s", "ms", "us", "ns" };

	private static final int SECONDS_UNIT = 3;

	private DurationFormat() {
	}

	/**
	 * Formats a duration as its non-zero parts from days down to nanoseconds, largest first.
	 * @param duration any duration, negative ones included
	 * @return the formatted duration, {@code 0s} for zero
	 */
	static String format(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		if (duration.isNegative()) {
			// Duration.negated() overflows for the most negative duration, which no one sets on purpose.
			return (duration.getSeconds() == Long.MIN_VALUE) ? duration.toString()
					: "-" + format(duration.negated());
		}
		StringBuilder text = new StringBuilder();
		// Seconds and larger come from getSeconds() so that durations beyond Long.MAX_VALUE nanos format too.
		long seconds = duration.getSeconds();
		for (int unit = 0; unit <= SECONDS_UNIT; unit++) {
			long unitSeconds = UNIT_NANOS[unit] / 1_000_000_000L;
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

	private static void append(StringBuilder text, long amount, String suffix) {
		if (amount != 0) {
			text.append(amount).append(suffix);
		}
	}

}
