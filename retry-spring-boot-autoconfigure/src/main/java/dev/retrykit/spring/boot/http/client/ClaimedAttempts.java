package dev.retrykit.spring.boot.http.client;

import java.io.IOException;

/**
 * Marks the thread that sends an attempt of a claimed call while it sends it. Apache HttpClient 5's classic API sends
 * on the caller's thread and hands its retry strategy only its own request and context, so the thread is how
 * {@link ClaimedHostsHttpRequestRetryStrategy} learns that a call of an HTTP service group, whatever its host, is an
 * attempt an instance already counts and spaces. Nothing else reads it.
 */
final class ClaimedAttempts {

	private static final ThreadLocal<Boolean> SENDING = new ThreadLocal<>();

	private ClaimedAttempts() {
	}

	/**
	 * Sends an attempt with the thread marked.
	 * @param send sends the attempt
	 * @return the attempt's response
	 * @throws IOException the attempt's I/O failure
	 */
	static <T> T send(Send<T> send) throws IOException {
		if (SENDING.get() != null) {
			return send.send();
		}
		SENDING.set(Boolean.TRUE);
		try {
			return send.send();
		}
		finally {
			SENDING.remove();
		}
	}

	/** {@return whether this thread is sending an attempt of a claimed call} */
	static boolean sending() {
		return SENDING.get() != null;
	}

	/**
	 * Sends an attempt.
	 * @param <T> the response
	 */
	@FunctionalInterface
	interface Send<T> {

		T send() throws IOException;

	}

}
