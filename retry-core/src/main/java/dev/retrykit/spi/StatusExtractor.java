package dev.retrykit.spi;

/**
 * Reads a protocol status code out of an exception, so that a policy can match it against a list
 * such as {@code "429,500-599"} (HTTP) or {@code "1-4,8-11,13,14"} (gRPC).
 *
 * <p>The Spring Boot module supplies one for Spring's HTTP client exceptions. Implementations must be
 * thread-safe and must not throw.
 */
public interface StatusExtractor {

	/** The value returned when an exception carries no status of this kind. */
	int NO_STATUS = -1;

	/** The kind of status an extractor reads. */
	enum Kind {
		/** HTTP status codes, 100 to 599. */
		HTTP,
		/** gRPC status codes, 0 to 16. */
		GRPC
	}

	/** {@return the kind of status this extractor reads} */
	Kind kind();

	/**
	 * Reads the status of one exception (not its causes: the engine walks the cause chain).
	 * @param failure the exception
	 * @return the status code, or {@link #NO_STATUS}
	 */
	int statusOf(Throwable failure);

}
