package dev.retrykit.spring.boot.http.client;

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
	 * Marks this thread as sending an attempt; pair with {@link #leave} in a {@code finally}.
	 * @return whether the thread was already marked (an attempt sent from inside another's), to hand to {@link #leave}
	 */
	static boolean enter() {
		if (SENDING.get() != null) {
			return true;
		}
		SENDING.set(Boolean.TRUE);
		return false;
	}

	/**
	 * Ends what {@link #enter} began: the mark goes unless an outer attempt set it.
	 * @param outer what {@link #enter} returned
	 */
	static void leave(boolean outer) {
		if (!outer) {
			SENDING.remove();
		}
	}

	/** {@return whether this thread is sending an attempt of a claimed call} */
	static boolean sending() {
		return SENDING.get() != null;
	}

}
