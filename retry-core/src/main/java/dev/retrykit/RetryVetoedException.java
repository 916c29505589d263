package dev.retrykit;

import java.io.Serial;

/**
 * Thrown when a {@link RetryListener#open} vetoed a call before its first attempt.
 */
public class RetryVetoedException extends RuntimeException {

	@Serial
	private static final long serialVersionUID = 1L;

	/**
	 * Makes the exception a call ends with when a listener vetoed it before its first attempt.
	 * @param message the detail message
	 */
	public RetryVetoedException(String message) {
		super(message);
	}

}
