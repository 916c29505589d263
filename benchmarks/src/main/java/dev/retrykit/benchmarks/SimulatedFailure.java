package dev.retrykit.benchmarks;

/**
 * The failure thrown by benchmarked calls: one preallocated instance without a stack trace or
 * suppression, so a failed attempt costs the unwinding and the library's handling, not the filling
 * of a stack trace.
 *
 * <p>Immutable and thread-safe.
 */
final class SimulatedFailure extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** The one instance every benchmark throws. */
	static final SimulatedFailure INSTANCE = new SimulatedFailure();

	private SimulatedFailure() {
		super("simulated failure", null, false, false);
	}

}
