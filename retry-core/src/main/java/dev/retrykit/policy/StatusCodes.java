package dev.retrykit.policy;

import java.util.Arrays;
import java.util.Objects;

import dev.retrykit.spi.StatusExtractor;
import org.jspecify.annotations.Nullable;

/**
 * A set of HTTP or gRPC status codes written in Dapr's format: single codes and inclusive ranges,
 * separated by commas, with spaces allowed around entries and around the dash, for example
 * {@code "429,500-599"} (HTTP) or {@code " 1-4, 8-11 ,13,14"} (gRPC). Entries may overlap.
 *
 * <p>HTTP codes are 100 to 599, gRPC codes 0 to 16. The set is a bitmap, so {@link #contains(int)}
 * is a bounds check and a bit test, without allocation. Immutable and thread-safe; two sets are
 * equal when they have the same kind and the same codes, however they were written.
 */
public final class StatusCodes {

	private final StatusExtractor.Kind kind;

	private final long[] bits;

	private final String normalized;

	private StatusCodes(StatusExtractor.Kind kind, long[] bits) {
		this.kind = kind;
		this.bits = bits;
		this.normalized = normalize(kind, bits);
	}

	/**
	 * Parses a status list.
	 * @param spec the list, e.g. {@code "429,500-599"}
	 * @param kind whether the codes are HTTP (100-599) or gRPC (0-16) codes
	 * @return the set of codes
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if the list is empty or an entry is empty, not a number or a
	 * range, out of bounds, or a reversed range; the message quotes the list and the entry and says
	 * what is allowed, e.g. {@code Invalid HTTP status list '429,50x': '50x' is not a status code or a
	 * range; use codes 100-599 and ranges like 500-599, separated by commas}
	 */
	public static StatusCodes parse(String spec, StatusExtractor.Kind kind) {
		Objects.requireNonNull(spec, "spec must not be null");
		Objects.requireNonNull(kind, "kind must not be null");
		if (spec.isBlank()) {
			throw invalid(spec, kind, "the list is empty");
		}
		long[] bits = new long[(max(kind) >>> 6) + 1];
		String[] entries = spec.split(",", -1);
		for (int i = 0; i < entries.length; i++) {
			String entry = entries[i].trim();
			if (entry.isEmpty()) {
				throw invalid(spec, kind, "entry " + (i + 1) + " is empty");
			}
			int dash = entry.indexOf('-');
			int from = number((dash < 0) ? entry : entry.substring(0, dash).trim());
			int to = (dash < 0) ? from : number(entry.substring(dash + 1).trim());
			if (from < 0 || to < 0) {
				throw invalid(spec, kind, "'" + entry + "' is not a status code or a range");
			}
			if (from < min(kind) || to > max(kind) || to < min(kind) || from > max(kind)) {
				throw invalid(spec, kind, "'" + entry + "' is outside " + min(kind) + "-" + max(kind));
			}
			if (from > to) {
				throw invalid(spec, kind, "'" + entry + "' is a reversed range (write the lower code first: " + to + "-" + from + ")");
			}
			for (int code = from; code <= to; code++) {
				bits[code >>> 6] |= 1L << code;
			}
		}
		return new StatusCodes(kind, bits);
	}

	/**
	 * {@return whether the code is in the set (codes outside the kind's bounds never are)}
	 * @param code a status code; any value is accepted
	 */
	public boolean contains(int code) {
		return code >= 0 && code <= max(this.kind) && (this.bits[code >>> 6] & (1L << code)) != 0;
	}

	/** {@return whether these are HTTP or gRPC codes} */
	public StatusExtractor.Kind kind() {
		return this.kind;
	}

	/**
	 * @return the normalized list: ascending, overlaps merged, runs of three or more codes as ranges,
	 * e.g. {@code "429,500-599"} or {@code "1-4,8-11,13,14"}
	 */
	@Override
	public String toString() {
		return this.normalized;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof StatusCodes && this.kind == ((StatusCodes) other).kind
				&& Arrays.equals(this.bits, ((StatusCodes) other).bits));
	}

	@Override
	public int hashCode() {
		return 31 * this.kind.hashCode() + Arrays.hashCode(this.bits);
	}

	/** @return the value of a run of ASCII digits, saturating for huge values, or -1 if not digits */
	private static int number(String text) {
		if (text.isEmpty()) {
			return -1;
		}
		long value = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c < '0' || c > '9') {
				return -1;
			}
			value = Math.min(Integer.MAX_VALUE, value * 10 + (c - '0'));
		}
		return (int) value;
	}

	private static String normalize(StatusExtractor.Kind kind, long[] bits) {
		StringBuilder text = new StringBuilder();
		int code = min(kind);
		while (code <= max(kind)) {
			if ((bits[code >>> 6] & (1L << code)) == 0) {
				code++;
				continue;
			}
			int end = code;
			while (end < max(kind) && (bits[(end + 1) >>> 6] & (1L << (end + 1))) != 0) {
				end++;
			}
			if (text.length() > 0) {
				text.append(',');
			}
			text.append(code);
			if (end == code + 1) {
				text.append(',').append(end);
			}
			else if (end > code) {
				text.append('-').append(end);
			}
			code = end + 1;
		}
		return text.toString();
	}

	private static int min(StatusExtractor.Kind kind) {
		return (kind == StatusExtractor.Kind.HTTP) ? 100 : 0;
	}

	private static int max(StatusExtractor.Kind kind) {
		return (kind == StatusExtractor.Kind.HTTP) ? 599 : 16;
	}

	private static IllegalArgumentException invalid(String spec, StatusExtractor.Kind kind, String reason) {
		String allowed = (kind == StatusExtractor.Kind.HTTP)
				? "use codes 100-599 and ranges like 500-599, separated by commas"
				: "use codes 0-16 and ranges like 1-4, separated by commas";
		String label = (kind == StatusExtractor.Kind.HTTP) ? "HTTP" : "gRPC";
		return new IllegalArgumentException("Invalid " + label + " status list '" + spec + "': " + reason + "; " + allowed);
	}

}
