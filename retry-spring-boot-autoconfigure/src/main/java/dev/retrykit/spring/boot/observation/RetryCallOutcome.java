package dev.retrykit.spring.boot.observation;

import java.util.Locale;

import dev.retrykit.context.CallOutcome;

/**
 * How a retried call ended, as the {@code outcome} key of the {@code retry.call} observation tells it.
 * The first four are the kinds of the {@code retry.calls} meter.
 */
public enum RetryCallOutcome {

	/** The first attempt succeeded. */
	SUCCESSFUL_WITHOUT_RETRY,

	/** An attempt after a failed one succeeded. */
	SUCCESSFUL_WITH_RETRY,

	/** The call failed after one attempt (not retryable, max-attempts 1, or vetoed). */
	FAILED_WITHOUT_RETRY,

	/** The call failed after more than one attempt. */
	FAILED_WITH_RETRY,

	/** The call did not succeed and its recovery callback returned the result. */
	RECOVERED,

	/** An open circuit refused an attempt and the call ended with {@code CircuitOpenException}. */
	REJECTED;

	private final String value = name().toLowerCase(Locale.ROOT);

	/**
	 * @param outcome how the engine counted the call
	 * @return the same outcome as the observation key tells it
	 */
	public static RetryCallOutcome of(CallOutcome outcome) {
		return valueOf(outcome.name());
	}

	/** @return the key's value: the name in lower case, e.g. {@code successful_without_retry} */
	public String value() {
		return this.value;
	}

}
