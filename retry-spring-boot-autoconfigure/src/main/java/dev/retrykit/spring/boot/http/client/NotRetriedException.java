package dev.retrykit.spring.boot.http.client;

import java.io.Serial;

/**
 * Says why a failed HTTP call was sent once: added as a suppressed exception to the failure the call ends with
 * (a method that is not idempotent, a request body that cannot be sent again). Has no stack trace.
 */
public final class NotRetriedException extends RuntimeException {

	@Serial
	private static final long serialVersionUID = 1L;

	NotRetriedException(String reason) {
		super(reason, null, false, false);
	}

	/**
	 * Adds the reason to a failure, once.
	 * @param failure the failure
	 * @param reason why it was not retried
	 * @param <T> the failure's type
	 * @return {@code failure}
	 */
	static <T extends Throwable> T note(T failure, String reason) {
		for (Throwable suppressed : failure.getSuppressed()) {
			if (suppressed instanceof NotRetriedException) {
				return failure;
			}
		}
		failure.addSuppressed(new NotRetriedException(reason));
		return failure;
	}

}
