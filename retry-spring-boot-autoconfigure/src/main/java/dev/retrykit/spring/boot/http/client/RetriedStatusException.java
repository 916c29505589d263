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
 * {@code @Retryable} methods read it too. It holds the attempt's response until the call decides: the response of
 * an attempt that is retried is released before the next attempt starts; the last one is handed to the client as
 * the call's response, so the application sees the downstream's answer as it would without retries. A hedged
 * call releases each failed copy's response at once and ends, when every copy failed, with this exception.
 */
public final class RetriedStatusException extends RestClientResponseException {

	@Serial
	private static final long serialVersionUID = 1L;

	/** The attempt's response ({@code ClientHttpResponse} or {@code ClientResponse}), still open; never serialized. */
	private final transient @Nullable Object response;

	RetriedStatusException(HttpMethod method, URI uri, HttpStatusCode status, HttpHeaders headers,
			@Nullable Object response) {
		super(status.value() + " from " + method.name() + " " + uri, status, "", headers, null, null);
		this.response = response;
	}

	/** {@return the attempt's response, or {@code null} once it was released} */
	@Nullable Object response() {
		return this.response;
	}

}
