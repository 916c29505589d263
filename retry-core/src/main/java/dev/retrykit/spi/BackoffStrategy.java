package dev.retrykit.spi;

/**
 * Computes the delays between attempts: a stateless strategy that starts a cursor for each call.
 *
 * <p>The built-in {@code dev.retrykit.backoff.BackoffPolicy} computes every delay from the retry
 * number and the previous delay alone, so its cursor is itself and starting a call allocates nothing.
 * A custom strategy whose delays depend on more state returns a fresh cursor from {@link #start()}.
 *
 * <p>Implementations must be thread-safe; a cursor is used by one call at a time.
 */
@FunctionalInterface
public interface BackoffStrategy {

	/**
	 * Starts the delays of one call. The engine calls this lazily, on the first failure of a call.
	 * @return the cursor of the call
	 */
	BackoffCursor start();

}
