package dev.retrykit.internal;

import java.util.function.Function;

/** Where the circuit breaker class leaves the accessor of its {@link CircuitGate}s, as it initializes. */
final class CircuitGateRegistry {

	static volatile Function<Object, CircuitGate> gates = breaker -> {
		throw new IllegalStateException("Not a circuit breaker: " + breaker);
	};

	private CircuitGateRegistry() {
	}

}
