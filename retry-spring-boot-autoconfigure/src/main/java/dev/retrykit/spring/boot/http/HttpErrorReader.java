package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.Nullable;

/**
 * Reads the status and a header of one family of Spring HTTP client exceptions. One implementation
 * per family keeps each optional jar's classes out of the others' code paths. Thread-safe.
 */
interface HttpErrorReader {

	/**
	 * @param failure any exception
	 * @return its HTTP status, or {@code -1} when it is not of this family
	 */
	int status(Throwable failure);

	/**
	 * @param failure any exception
	 * @param name a header name
	 * @return the first value of the response header, or {@code null}
	 */
	@Nullable String header(Throwable failure, String name);

}
