package dev.retrykit.spring.boot.autoconfigure.actuate;

import java.time.Duration;

/**
 * Formats durations the way users write them in {@code application.yml}: in the largest unit that
 * divides them exactly ({@code 100ms}, {@code 2s}, {@code 90s}, {@code 5m}), so that a value read at
 * the endpoint can be pasted back into a property. Stateless and thread-safe.
 */
final class ReadableDurations {

	private static final long[] UNIT_NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
			1_000_000_000L, 1_000_000L, 1_000L, 1L };

	private static final String[] UNIT_SUFFIXES = { "d", "h", "m", "s", "ms", "us", "ns" };

	private ReadableDurations() {
	}

	/**
	 * @param duration a duration
	 * @return its readable form, {@code 0s} for zero
	 */
	static String format(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		if (duration.compareTo(Duration.ofDays(365L * 200)) > 0 || duration.isNegative()) {
			// Beyond what nanoseconds hold in a long (or negative, which no setting allows): ISO form.
			return duration.toString();
		}
		long nanos = duration.toNanos();
		for (int unit = 0; unit < UNIT_NANOS.length; unit++) {
			if (nanos % UNIT_NANOS[unit] == 0) {
				return (nanos / UNIT_NANOS[unit]) + UNIT_SUFFIXES[unit];
			}
		}
		return nanos + "ns";
	}

	/**
	 * @param nanos a duration in nanoseconds
	 * @return its readable form, rounded to the millisecond above one millisecond
	 */
	static String formatRounded(long nanos) {
		long millis = Math.round(nanos / 1_000_000.0);
		return format((millis > 0) ? Duration.ofMillis(millis) : Duration.ofNanos(nanos));
	}

}
