package dev.retrykit.spi;

import java.util.Arrays;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A circuit transition sent from one replica to the others through a {@link ClusterEngine}. What
 * arrives on the engine's channel may come from anything that can reach the engine, so
 * {@link #decode} accepts only what {@link #encode()} can make, within {@link #MAX_ENCODED_LENGTH}
 * characters.
 *
 * @param circuit the name of the circuit breaker
 * @param kind what happened
 * @param replica the id of the replica it happened on
 */
public record CircuitSignal(String circuit, Kind kind, String replica) {

	/** The longest encoded signal {@link #decode} accepts, in characters. */
	public static final int MAX_ENCODED_LENGTH = 512;

	/**
	 * The sender an engine gives for a message it cannot attribute to a registered member of the
	 * cluster (Redis Pub/Sub does not say who published): such a message never counts toward a quorum
	 * and a manual transition from it is ignored, both counted as dropped. An empty sender means the same.
	 */
	public static final String UNREGISTERED_SENDER = "unregistered";

	/**
	 * Makes a signal, checking that it can be written as one line and read back.
	 * @param circuit the name of the circuit breaker, any characters
	 * @param kind what happened
	 * @param replica the id of the replica it happened on, without {@code '|'}
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if {@code replica} contains {@code '|'}, or either name is empty or
	 * contains a {@linkplain #isUnsafe(char) control character}
	 */
	public CircuitSignal {
		Objects.requireNonNull(circuit, "circuit must not be null");
		Objects.requireNonNull(kind, "kind must not be null");
		Objects.requireNonNull(replica, "replica must not be null");
		if (replica.indexOf('|') >= 0) {
			throw new IllegalArgumentException("Invalid replica id '" + replica + "': must not contain '|'");
		}
		if (!printable(replica) || !printable(circuit)) {
			throw new IllegalArgumentException("Invalid circuit signal: the replica id and the circuit name must not be"
					+ " empty nor contain control characters");
		}
	}

	private static boolean printable(String text) {
		if (text.isEmpty()) {
			return false;
		}
		for (int i = 0; i < text.length(); i++) {
			if (isUnsafe(text.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether a character may not appear in a signal, nor as itself in a log line about one: an ISO
	 * control character, the line and paragraph separators U+2028 and U+2029 (line breaks to many
	 * log viewers), and the bidirectional controls U+061C, U+200E, U+200F, U+202A to U+202E and U+2066
	 * to U+2069 (which reorder how the text around them is shown).
	 * @param c a character
	 * @return whether it is refused
	 */
	public static boolean isUnsafe(char c) {
		return Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || c == '\u061c' || c == '\u200e'
				|| c == '\u200f' || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
	}

	/** What happened to the circuit. */
	public enum Kind {

		/** Opened by hand: it stays open until closed by hand. */
		FORCE_OPEN,

		/** Closed by hand. */
		CLOSE,

		/** Opened by its own trip expression. */
		TRIP

	}

	/**
	 * Encodes the signal as one string, so that an engine carries only JDK types.
	 * @return {@code kind|replica|circuit}
	 */
	public String encode() {
		return this.kind.name() + '|' + this.replica + '|' + this.circuit;
	}

	/**
	 * Reads a signal from its one-line text form.
	 * @param encoded a string made by {@link #encode()}
	 * @return the signal
	 * @throws IllegalArgumentException if the string was not made by {@link #encode()} or is longer than
	 * {@link #MAX_ENCODED_LENGTH}; the message does not repeat the string
	 */
	public static CircuitSignal decode(String encoded) {
		if (encoded.length() > MAX_ENCODED_LENGTH) {
			throw new IllegalArgumentException("Invalid circuit signal of " + encoded.length() + " characters: at most "
					+ MAX_ENCODED_LENGTH + " are accepted");
		}
		int first = encoded.indexOf('|');
		int second = (first < 0) ? -1 : encoded.indexOf('|', first + 1);
		Kind kind = (second < 0) ? null : kind(encoded.substring(0, first));
		if (kind == null) {
			throw new IllegalArgumentException("Invalid circuit signal: expected kind|replica|circuit with kind one of "
					+ Arrays.toString(Kind.values()));
		}
		return new CircuitSignal(encoded.substring(second + 1), kind, encoded.substring(first + 1, second));
	}

	private static @Nullable Kind kind(String name) {
		for (Kind kind : Kind.values()) {
			if (kind.name().equals(name)) {
				return kind;
			}
		}
		return null;
	}

}
