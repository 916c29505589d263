package dev.retrykit.circuit;

/**
 * The states of a {@link CircuitBreaker}.
 *
 * <p>The normal cycle is {@code CLOSED → OPEN → HALF_OPEN → CLOSED}, with {@code HALF_OPEN → OPEN}
 * when a trial call fails. Manual control ({@link CircuitBreaker#forceOpen()},
 * {@link CircuitBreaker#close()}) can move from any state to {@code OPEN} or {@code CLOSED}.
 */
public enum CircuitState {

	/** Calls pass; outcomes are counted and the trip expression is evaluated on each failure. */
	CLOSED,

	/** Calls are rejected until the timeout has passed (or, when forced open, until closed by hand). */
	OPEN,

	/** A limited number of trial calls pass; their outcomes decide between closing and re-opening. */
	HALF_OPEN

}
