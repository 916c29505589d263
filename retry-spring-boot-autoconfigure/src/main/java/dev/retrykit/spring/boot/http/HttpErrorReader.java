package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.Nullable;

/**
 * Reads the response of one family of Spring HTTP client exceptions. One implementation per family
 * keeps each optional jar's classes out of the others' code paths. Thread-safe.
 */
@FunctionalInterface
interface HttpErrorReader {

	/**
	 * @param failure any exception
	 * @return the status and headers of its response, or {@code null} when it is not of this family
	 */
	@Nullable HttpErrorResponse read(Throwable failure);

}
