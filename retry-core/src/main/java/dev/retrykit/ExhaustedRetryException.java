package dev.retrykit;

import java.io.Serial;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a stateful call whose retries are exhausted and that has no recovery: the cause is the
 * last failure. (A stateless call rethrows its last failure unchanged instead.)
 */
public class ExhaustedRetryException extends RuntimeException {

	@Serial
	private static final long serialVersionUID = 1L;

	/**
	 * Makes the exception a stateful call ends with once its retries are exhausted without recovery.
	 * @param message the detail message
	 * @param cause the last failure, if known
	 */
	public ExhaustedRetryException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
