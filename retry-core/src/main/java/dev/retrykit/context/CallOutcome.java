package dev.retrykit.context;

/**
 * How a call ended, as the engine decided it and counted it in {@link dev.retrykit.RetryMetrics}: told to listeners
 * through {@link RetryContext#getOutcome()} when the call closes, so that what they report (an
 * observation's {@code outcome}, a log line) agrees with the counters.
 */
public enum CallOutcome {

	/** Its first attempt succeeded. */
	SUCCESSFUL_WITHOUT_RETRY,

	/** An attempt after the first succeeded. */
	SUCCESSFUL_WITH_RETRY,

	/** It failed (or its results were rejected) after one attempt, and was not recovered. */
	FAILED_WITHOUT_RETRY,

	/** It failed (or its results were rejected) after more than one attempt, and was not recovered. */
	FAILED_WITH_RETRY,

	/** It did not succeed and its recovery returned a result. */
	RECOVERED,

	/** An open circuit refused an attempt, and the call ended with the rejection. */
	REJECTED;

	/**
	 * The outcome of a call that ended without success.
	 * @param retried whether more than one attempt ran (or was refused)
	 * @return {@link #FAILED_WITH_RETRY} or {@link #FAILED_WITHOUT_RETRY}
	 */
	public static CallOutcome failed(boolean retried) {
		return retried ? FAILED_WITH_RETRY : FAILED_WITHOUT_RETRY;
	}

	/**
	 * The outcome of a call that ended with success.
	 * @param retried whether more than one attempt ran
	 * @return {@link #SUCCESSFUL_WITH_RETRY} or {@link #SUCCESSFUL_WITHOUT_RETRY}
	 */
	public static CallOutcome successful(boolean retried) {
		return retried ? SUCCESSFUL_WITH_RETRY : SUCCESSFUL_WITHOUT_RETRY;
	}

}
