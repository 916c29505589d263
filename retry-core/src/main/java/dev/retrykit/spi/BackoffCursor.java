package dev.retrykit.spi;

/**
 * The delays of one call, see {@link BackoffStrategy}.
 */
@FunctionalInterface
public interface BackoffCursor {

	/**
	 * The delay before a retry.
	 * @param retry the retry number: 1 before the second attempt, 2 before the third, ...
	 * @param previousDelayNanos the delay this cursor returned for the previous retry, or 0 for the first
	 * @return the delay in nanoseconds, zero or more (zero means retry at once)
	 */
	long nextDelayNanos(int retry, long previousDelayNanos);

}
