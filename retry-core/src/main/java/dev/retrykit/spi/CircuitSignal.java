package dev.retrykit.spi;

import java.util.Objects;

/**
 * A circuit transition sent from one replica to the others through a {@link ClusterEngine}.
 *
 * @param circuit the name of the circuit breaker
 * @param kind what happened
 * @param replica the id of the replica it happened on
 */
public record CircuitSignal(String circuit, Kind kind, String replica) {

	/**
	 * @param circuit the name of the circuit breaker, any characters
	 * @param kind what happened
	 * @param replica the id of the replica it happened on, without {@code '|'}
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if {@code replica} contains {@code '|'}
	 */
	public CircuitSignal {
		Objects.requireNonNull(circuit, "circuit must not be null");
		Objects.requireNonNull(kind, "kind must not be null");
		Objects.requireNonNull(replica, "replica must not be null");
		if (replica.indexOf('|') >= 0) {
			throw new IllegalArgumentException("Invalid replica id '" + replica + "': must not contain '|'");
		}
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
	 * @param encoded a string made by {@link #encode()}
	 * @return the signal
	 * @throws IllegalArgumentException if the string was not made by {@link #encode()}
	 */
	public static CircuitSignal decode(String encoded) {
		int first = encoded.indexOf('|');
		int second = (first < 0) ? -1 : encoded.indexOf('|', first + 1);
		if (second < 0) {
			throw new IllegalArgumentException("Invalid circuit signal '" + encoded + "': expected kind|replica|circuit");
		}
		return new CircuitSignal(encoded.substring(second + 1), Kind.valueOf(encoded.substring(0, first)),
				encoded.substring(first + 1, second));
	}

}
