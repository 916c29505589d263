package dev.retrykit.spring.boot.http;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;

/**
 * The response behind a Spring HTTP client exception, as an {@link HttpErrorReader} read it.
 * @param status the response's status
 * @param headers the response's headers, or {@code null} when the exception has none
 */
record HttpErrorResponse(HttpStatusCode status, @Nullable HttpHeaders headers) {

	/**
	 * @param name a header name
	 * @return the first value of the header, or {@code null}
	 */
	@Nullable String header(String name) {
		HttpHeaders all = this.headers;
		return (all != null) ? all.getFirst(name) : null;
	}

}
