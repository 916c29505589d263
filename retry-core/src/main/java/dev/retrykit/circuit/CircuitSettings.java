package dev.retrykit.circuit;

/**
 * A breaker's settings as its decisions read them, derived once from its {@link CircuitBreakerConfig}
 * and swapped as one by {@link CircuitBreaker#reconfigure}: a decision that reads them sees one
 * configuration, never the trip expression of one and the timeout of the next. Immutable.
 * @param config the configuration they come from
 * @param trip when a closed circuit opens
 * @param intervalNanos how long a closed window counts before its counts clear; 0 for never
 * @param timeoutNanos how long an open circuit stays open before it lets trial calls through
 * @param maxRequests the trial calls a half-open circuit admits at once
 */
record CircuitSettings(CircuitBreakerConfig config, TripExpression trip, long intervalNanos, long timeoutNanos,
		int maxRequests) {

	/** {@return the settings of {@code config}} */
	static CircuitSettings of(CircuitBreakerConfig config) {
		return new CircuitSettings(config, config.getTripExpression(), config.getInterval().toNanos(),
				config.getTimeout().toNanos(), config.getMaxRequests());
	}

}
