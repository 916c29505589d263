package dev.retrykit.circuit;

import java.time.Duration;

/**
 * Formats durations for people: configuration values exactly, remaining times approximately.
 */
final class DurationFormat {

	private static final long MICRO = 1_000L;

	private static final long MILLI = 1_000_000L;

	private static final long SECOND = 1_000_000_000L;

	private static final long MINUTE = 60 * SECOND;

	private static final long HOUR = 60 * MINUTE;

	private DurationFormat() {
	}

	/**
	 * An exact value in the largest unit that divides it: {@code 0s}, {@code 250ms}, {@code 90s},
	 * {@code 5m}, {@code 2h}, {@code 1500us}. The result is also a valid Spring Boot duration.
	 */
	static String exact(Duration duration) {
		long nanos;
		try {
			nanos = duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return duration.toString();
		}
		if (nanos == 0) {
			return "0s";
		}
		String sign = (nanos < 0) ? "-" : "";
		long abs = Math.abs(nanos);
		if (abs % HOUR == 0) {
			return sign + abs / HOUR + "h";
		}
		if (abs % MINUTE == 0) {
			return sign + abs / MINUTE + "m";
		}
		if (abs % SECOND == 0) {
			return sign + abs / SECOND + "s";
		}
		if (abs % MILLI == 0) {
			return sign + abs / MILLI + "ms";
		}
		if (abs % MICRO == 0) {
			return sign + abs / MICRO + "us";
		}
		return sign + abs + "ns";
	}

	/**
	 * A remaining time, rounded up so that it never understates the wait: milliseconds below a
	 * second ({@code 250ms}, at least {@code 1ms}), tenths of seconds above ({@code 12.3s},
	 * {@code 1m5.2s}, {@code 1h}).
	 */
	static String remaining(long nanos) {
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
		if (hours > 0) {
			text.append(hours).append('h');
		}
		if (minutes > 0) {
			text.append(minutes).append('m');
		}
		if (secondTenths > 0 || text.length() == 0) {
			text.append(secondTenths / 10);
			if (secondTenths % 10 != 0) {
				text.append('.').append(secondTenths % 10);
			}
			text.append('s');
		}
		return text.toString();
	}

	private static long ceilDiv(long value, long divisor) {
		return value / divisor + ((value % divisor == 0) ? 0 : 1);
	}

}
