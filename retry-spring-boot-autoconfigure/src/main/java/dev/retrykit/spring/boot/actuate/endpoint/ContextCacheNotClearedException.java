package dev.retrykit.spring.boot.actuate.endpoint;

/**
 * Thrown by the {@code clear-cache} action of {@link RetriesEndpoint} when an instance's context cache is shared
 * by the replicas and its shared store could not be cleared (the cluster engine was unreachable, slower than its
 * timeout, or failed): the replica's local contexts were cleared, the shared ones remain. Over HTTP it is answered
 * with 503 Service Unavailable and its message.
 */
public class ContextCacheNotClearedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message what was and was not cleared, and what to do
	 */
	public ContextCacheNotClearedException(String message) {
		super(message);
	}

}
