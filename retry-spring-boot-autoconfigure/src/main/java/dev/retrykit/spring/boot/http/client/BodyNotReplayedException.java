package dev.retrykit.spring.boot.http.client;

import java.io.Serial;

/**
 * Carries the failure of a {@code WebClient} attempt whose request body cannot be sent again through the retry
 * engine: the HTTP variant of every instance never retries it (it is in the variant's {@code ignore} types), so the
 * call ends with it, and the client unwraps it to the attempt's own failure. Has no stack trace; never reaches the
 * caller.
 */
final class BodyNotReplayedException extends RuntimeException {

	@Serial
	private static final long serialVersionUID = 1L;

	BodyNotReplayedException(Throwable failure) {
		super(failure.toString(), failure, false, false);
	}

}
