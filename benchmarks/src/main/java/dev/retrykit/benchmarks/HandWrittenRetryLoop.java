package dev.retrykit.benchmarks;

import java.util.concurrent.Callable;

/**
 * The baseline a library competes with: the try/catch loop people write by hand, with no backoff, no
 * classification, no listeners and no metrics.
 *
 * <p>Stateless and thread-safe.
 */
final class HandWrittenRetryLoop {

	private HandWrittenRetryLoop() {
	}

	/**
	 * Calls {@code callable} until it returns, at most {@code maxAttempts} times.
	 * @param callable the call to make
	 * @param maxAttempts attempts in all, the first one included; 1 or more
	 * @return what the first successful attempt returned
	 * @throws Exception the last attempt's exception once all attempts failed
	 */
	static <T> T call(Callable<T> callable, int maxAttempts) throws Exception {
		for (int attempt = 1;; attempt++) {
			try {
				return callable.call();
			}
			catch (Exception ex) {
				if (attempt >= maxAttempts) {
					throw ex;
				}
			}
		}
	}

}
