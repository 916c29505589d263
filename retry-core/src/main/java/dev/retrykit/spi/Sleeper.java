package dev.retrykit.spi;

/**
 * Waits between attempts of a synchronous retry.
 *
 * <p>The engine never calls {@link Thread#sleep} itself: it calls the sleeper it was built with, so
 * tests can substitute a virtual-time implementation that records delays instead of waiting. The
 * engine never calls a sleeper with a zero or negative delay.
 *
 * <p>Implementations must be thread-safe: one sleeper serves every call of a template.
 */
@FunctionalInterface
public interface Sleeper {

	/** The default sleeper: {@link Thread#sleep(long, int)}. */
	Sleeper THREAD_SLEEP = nanos -> Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));

	/**
	 * Waits for the given time.
	 * @param nanos the time to wait, always greater than zero
	 * @throws InterruptedException if the waiting thread is interrupted; the engine then ends the call
	 */
	void sleep(long nanos) throws InterruptedException;

}
