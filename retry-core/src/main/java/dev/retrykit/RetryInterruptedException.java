package dev.retrykit;

import java.io.Serial;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the thread of a synchronous call is interrupted while waiting before a retry. The call
 * ends at once, the thread's interrupt flag is set again, and the cause is the last failure.
 */
public class RetryInterruptedException extends RuntimeException {

	@Serial
	private static final long serialVersionUID = 1L;

	/**
	 * Makes the exception a call ends with when its thread is interrupted while it waits between attempts.
	 * @param message the detail message
	 * @param lastFailure the failure of the attempt before the interrupted wait
	 */
	public RetryInterruptedException(String message, @Nullable Throwable lastFailure) {
		super(message, lastFailure);
	}

}
