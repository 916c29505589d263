package dev.retrykit.spring.boot.http.client;

import java.io.Serial;
import java.net.URI;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClientResponseException;

/**
 * The failure of an attempt whose response had a status the instance retries ({@code match.http-status}). A
 * {@link RestClientResponseException}, so the status extractor and the {@code Retry-After} reader that serve
 * {@code @Retryable} methods read it too. The attempt's response was read (its first {@value #MAX_BODY} bytes) and
 * released before this was thrown, so no connection waits through the backoff; the exception holds a copy of it
 * that holds no connection, which the client gets as the call's response when the call ends with this failure.
 */
public final class RetriedStatusException extends RestClientResponseException {

	/** The most bytes of a failed attempt's body that are kept; a longer body is dropped. */
	public static final int MAX_BODY = 64 * 1024;

	@Serial
	private static final long serialVersionUID = 1L;

	/** A copy of the attempt's response ({@code ClientHttpResponse} or {@code ClientResponse}); never serialized. */
	private final transient @Nullable Object response;

	RetriedStatusException(HttpMethod method, URI uri, HttpStatusCode status, HttpHeaders headers, byte[] body,
			@Nullable Object response) {
		super(status.value() + " from " + method.name() + " " + uri, status, "", headers, body, null);
		this.response = response;
	}

	/** {@return the copy of the attempt's response, or {@code null}} */
	@Nullable Object response() {
		return this.response;
	}

}
